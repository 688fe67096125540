package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call of a tool the gateway does not serve names the tool meant when the name is one
// in another case (TAP_XY had no hint), and quotes a long name cut short (it echoed all 5,000
// characters), as the gateway's own refusal does.
func TestCallUnknownToolIsToldShortWithTheToolMeant(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	long := strings.Repeat("x", 5000)
	for _, c := range []struct{ tool, want, not string }{
		{"TAP_XY", `corral call: the gateway has no tool "TAP_XY" (did you mean "tap_xy"?); docs/scripted-runs.md lists`, ""},
		{"Tap_Xi", `(did you mean "tap_xy"?)`, ""},
		{long, `corral call: the gateway has no tool "` + long[:64] + `…"; docs/scripted-runs.md lists`, long[:65]},
	} {
		var code int
		said := captureOutput(t, func() {
			code = realMain([]string{"call", "--gateway", f.Gateway().MCPURL, "--log-level", "error", c.tool, "{}"})
		})
		assert.Equal(t, 1, code, said)
		assert.Contains(t, said, c.want)
		if c.not != "" {
			assert.NotContains(t, said, c.not)
		}
		assert.Less(t, len(said), 400, "the answer stays short: %s", said)
	}
}
