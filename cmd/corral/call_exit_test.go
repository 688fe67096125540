package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// corral call's arguments that are no JSON object are a command line it does not take: exit 2
// (README), before it dials anything, as for a flag it does not take.
func TestCallArgumentsNoObjectExit2(t *testing.T) {
	for _, arg := range []string{"{bad", "[1,2]", `"x"`} {
		var code int
		said := captureOutput(t, func() {
			code = realMain([]string{"call", "--gateway", "http://127.0.0.1:1/mcp", "tap_xy", arg})
		})
		assert.Equal(t, 2, code, "%s: %s", arg, said)
		assert.Contains(t, said, "arguments must be a JSON object", arg)
	}
}
