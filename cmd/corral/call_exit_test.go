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

// A gateway that does not answer is exit 1, and the error says how to name another one: a
// farm on other ports is a new user's first stumble.
func TestCallToNoGatewayNamesTheFlag(t *testing.T) {
	var code int
	said := captureOutput(t, func() {
		code = realMain([]string{"call", "--gateway", "http://127.0.0.1:1/mcp", "get_screen_size", `{"serial":"x"}`})
	})
	assert.Equal(t, 1, code, said)
	assert.Contains(t, said, "is it up? corral up serves one on 127.0.0.1:8420; give another with --gateway URL")
}
