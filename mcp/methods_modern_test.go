package mcp

import (
	"net/http"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
)

// A 405's Allow header names the methods of the request's protocol revision: only POST from
// 2026-07-28 (no sessions: mcp-go answers GET and DELETE 405 with Allow: POST), GET, POST and
// DELETE before it or without the header.
func TestAllowNamesTheRevisionsMethods(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{Policy: testPolicy(t)})
	modern := map[string]string{mcpgo.HeaderProtocolVersion: mcpgo.ProtocolVersion20260728, "Authorization": "Bearer " + labToken}
	for _, method := range []string{http.MethodPut, http.MethodOptions} {
		a := h.raw(t, method, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, modern)
		assert.Equal(t, http.StatusMethodNotAllowed, a.status, "%s: %s", method, a.body)
		assert.Equal(t, "POST", a.header.Get("Allow"), method)
		_, msg := rpcErr(t, a.body)
		assert.Contains(t, msg, "HTTP method "+method+" is not allowed on /mcp: POST sends a message (from protocol revision 2026-07-28 there are no sessions", method)

		a = h.raw(t, method, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{mcpgo.HeaderProtocolVersion: mcpgo.LATEST_LEGACY_PROTOCOL_VERSION})
		assert.Equal(t, "GET, POST, DELETE", a.header.Get("Allow"), method)
	}
	// mcp-go's own 405 for a GET of that revision says the same.
	a := h.raw(t, http.MethodGet, "", modern)
	assert.Equal(t, http.StatusMethodNotAllowed, a.status, a.body)
	assert.Equal(t, "POST", a.header.Get("Allow"))
}
