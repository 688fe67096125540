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
	for _, c := range []struct {
		args []string
		want string // "": taken
	}{
		{[]string{"devices", "--tags", ",,"}, "each tag must be 1 to 64 bytes long"},
		{[]string{"devices", "--tags", "lab,,sim-card"}, "each tag must be 1 to 64 bytes long"},
		{[]string{"leases", "--tags", "lab,"}, "each tag must be 1 to 64 bytes long"},
		{[]string{"devices", "--tags", strings.Repeat("t", 65)}, "each tag must be 1 to 64 bytes long"},
		{[]string{"devices", "--model", strings.Repeat("m", 100_000)}, "model is 100000 bytes long; at most 256"},
		{[]string{"leases", "--node", strings.Repeat("n", 300)}, "node is 300 bytes long; at most 256"},
		{[]string{"devices", "--tags", "lab, sim-card"}, ""},
		{[]string{"devices", "--tags", "lab sim-card"}, ""},
		{[]string{"devices", "--tags", ""}, ""},
		{[]string{"devices", "--model", "Pixel 8"}, ""},
	} {
		args := append(c.args, "--gateway", gw, "--check-config")
		var code int
		out := captureOutput(t, func() { code = realMain(args) })
		shown := strings.Join(c.args, " ")
		if len(shown) > 80 {
			shown = shown[:80] + "…"
		}
		if c.want == "" {
			assert.Equal(t, 0, code, "corral %s: %s", shown, out)
			continue
		}
		assert.Equal(t, 2, code, "corral %s: %.300s", shown, out)
		assert.Contains(t, out, c.want, "corral %s", shown)
	}
	assert.Equal(t, []string{"lab", "sim-card", "x"}, tagList("lab, sim-card x"))
	assert.Equal(t, []string{"", ""}, tagList(" , "))
	assert.Nil(t, tagList("  "))
}
