package mcp

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tools/call of a tool the gateway does not serve stays a protocol error (-32602, as MCP
// has it), but quotes at most 64 characters of the name (it quoted all 5,000) and names the
// tool most likely meant: the same name in another case first (TAP_XY got no suggestion),
// then the nearest. A served tool's call still reaches it, whatever "name" keys come before.
func TestUnknownToolIsToldShortWithTheToolMeant(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	session := h.initialize(t)
	header := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}
	long := strings.Repeat("x", 5000)
	for _, c := range []struct {
		name, params string // params: the tools/call's, when not just the name
		want, not    string
	}{
		{name: "TAP_XY", want: `tool "TAP_XY" not found: did you mean "tap_xy"?`},
		{name: "tap_xi", want: `tool "tap_xi" not found: did you mean "tap_xy"?`},
		{name: "Tap_Xi", want: `did you mean "tap_xy"?`},
		{name: long, want: `tool "` + strings.Repeat("x", 64) + `…" not found; tools/list lists the`, not: strings.Repeat("x", 65)},
		{name: "no_such_tool", want: `tool "no_such_tool" not found; tools/list lists the`, not: "did you mean"},
		// the progress token sends it by the decoding path
		{name: "TAP_XY", params: `{"name":"TAP_XY","arguments":{},"_meta":{"progressToken":"p1"}}`, want: `did you mean "tap_xy"?`},
		// an argument called name before the tool's: the decoding tells which is the tool's
		// (one whose value is a served tool's name lets the call by to mcp-go's words)
		{name: "TAP_XY", params: `{"arguments":{"name":"Bob"},"name":"TAP_XY"}`, want: `tool "TAP_XY" not found: did you mean "tap_xy"?`},
	} {
		params := c.params
		if params == "" {
			b, _ := json.Marshal(map[string]any{"name": c.name, "arguments": map[string]any{}})
			params = string(b)
		}
		a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":`+params+`}`, header)
		assert.Equal(t, http.StatusOK, a.status, a.body)
		code, msg := rpcErr(t, a.body)
		assert.Equal(t, codeInvalidParams, code, a.body)
		assert.Contains(t, msg, c.want, shorten(params, 80))
		if c.not != "" {
			assert.NotContains(t, msg, c.not, shorten(params, 80))
		}
		assert.Less(t, len(a.body), 400, "the answer stays short")
	}

	// A served tool whose name comes after an argument called name is called, not refused.
	a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{"name":"TAP_XY"},"name":"list_available_devices"}}`, header)
	require.Equal(t, http.StatusOK, a.status, a.body)
	assert.NotContains(t, a.body, "not found", a.body)
	assert.Contains(t, a.body, `"result"`, a.body)
}
