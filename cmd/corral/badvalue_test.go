package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A flag value a command refuses exits 2, as one the flag package cannot parse does: the
// README's "2 for a command line it does not take", whether the value came from the command
// line or from CORRAL_<FLAG>.
func TestRefusedFlagValuesExit2(t *testing.T) {
	const nats = "nats://127.0.0.1:1" // never dialled: the value is refused first
	for _, args := range [][]string{
		{"devices", "--limit", "abc", "--nats-url", nats},
		{"devices", "--limit", "-1", "--nats-url", nats},
		{"devices", "--state", "bogus", "--nats-url", nats},
		{"devices", "--log-level", "loud", "--nats-url", nats},
		{"tasks", "--outcome", "bogus", "--nats-url", nats},
		{"call", "--timeout", "0", "--nats-url", nats, "list_devices", "{}"},
		{"up", "--sim-android", "-1", "--check-config"},
	} {
		var code int
		out := captureOutput(t, func() { code = realMain(args) })
		assert.Equal(t, 2, code, "corral %s: %s", strings.Join(args, " "), out)
	}
	t.Setenv("CORRAL_LIMIT", "-3")
	var code int
	out := captureOutput(t, func() { code = realMain([]string{"devices", "--nats-url", nats}) })
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, "came from CORRAL_LIMIT")
}
