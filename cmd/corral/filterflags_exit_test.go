package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Filter flags the list tools would refuse are refused here, in the gateway's words, with
// exit 2 as for any bad flag value: --tags ",," listed every device (the empty tags were
// dropped) where list_available_devices refuses tags [""], and a --model of 100 KB exited 1
// with the gateway's refusal. Tags split at commas and spaces still go on.
func TestFilterFlagsTheGatewayRefusesExit2(t *testing.T) {
	noNATSSettings(t)
	const gw = "http://127.0.0.1:1/mcp" // never dialled: --check-config
	checkConfigExits(t, []exitCase{
		{[]string{"devices", "--tags", ",,", "--gateway", gw}, "each tag must be 1 to 64 bytes long"},
		{[]string{"devices", "--tags", "lab,,sim-card", "--gateway", gw}, "each tag must be 1 to 64 bytes long"},
		{[]string{"leases", "--tags", "lab,", "--gateway", gw}, "each tag must be 1 to 64 bytes long"},
		{[]string{"devices", "--tags", strings.Repeat("t", 65), "--gateway", gw}, "each tag must be 1 to 64 bytes long"},
		{[]string{"devices", "--model", strings.Repeat("m", 100_000), "--gateway", gw}, "model is 100000 bytes long; at most 256"},
		{[]string{"leases", "--node", strings.Repeat("n", 300), "--gateway", gw}, "node is 300 bytes long; at most 256"},
		{[]string{"devices", "--tags", "lab, sim-card", "--gateway", gw}, ""},
		{[]string{"devices", "--tags", "lab sim-card", "--gateway", gw}, ""},
		{[]string{"devices", "--tags", "", "--gateway", gw}, ""},
		{[]string{"devices", "--model", "Pixel 8", "--gateway", gw}, ""},
	})
	assert.Equal(t, []string{"lab", "sim-card", "x"}, tagList("lab, sim-card x"))
	assert.Equal(t, []string{"", ""}, tagList(" , "))
	assert.Nil(t, tagList("  "))
}
