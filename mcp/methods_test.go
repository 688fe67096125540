package mcp

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A method the transport has not (PUT, PATCH, OPTIONS) is 405 Method Not Allowed with the
// methods it has in Allow, and says which to use (mcp-go answered 404, as if /mcp were not
// there); with a session or without, before any token is asked for.
func TestOtherMethodsAre405(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{Policy: testPolicy(t)})
	for _, method := range []string{http.MethodPut, http.MethodPatch, http.MethodOptions} {
		for _, header := range []map[string]string{nil, {"Mcp-Session-Id": "mcp-session-x", "Authorization": "Bearer " + labToken}} {
			a := h.raw(t, method, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, header)
			assert.Equal(t, http.StatusMethodNotAllowed, a.status, "%s: %s", method, a.body)
			assert.Equal(t, "GET, POST, DELETE", a.header.Get("Allow"), method)
			code, msg := rpcErr(t, a.body)
			assert.Equal(t, codeInvalidRequest, code, method)
			assert.Contains(t, msg, "HTTP method "+method+" is not allowed on /mcp: POST sends a message", method)
		}
	}
}
