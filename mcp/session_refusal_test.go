package mcp

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A session's 404 (an id never issued, or one ended by DELETE) answers with the id of the
// request it refuses, as any JSON-RPC error does; a batch, a body that is no JSON and a GET
// keep null, as nothing in them names one request.
func TestSessionRefusalCarriesTheRequestsID(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	ended := h.initialize(t)
	require.Equal(t, http.StatusOK, h.raw(t, http.MethodDelete, "", map[string]string{"Mcp-Session-Id": ended}).status)
	for name, session := range map[string]string{
		"never issued": "mcp-session-0b5d8b6e-1f2a-4c3d-9e8f-7a6b5c4d3e2f",
		"ended":        ended,
	} {
		for _, c := range []struct {
			method, body, id string
		}{
			{http.MethodPost, `{"jsonrpc":"2.0","id":"req-42","method":"tools/list"}`, `"req-42"`},
			{http.MethodPost, `{"method":"ping","jsonrpc":"2.0","id":43}`, `43`},
			{http.MethodPost, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `null`},
			{http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `null`},
			{http.MethodPost, `{"jsonrpc":"2.0","id":1,`, `null`},
			{http.MethodGet, "", `null`},
		} {
			a := h.raw(t, c.method, c.body, map[string]string{"Mcp-Session-Id": session})
			require.Equal(t, http.StatusNotFound, a.status, "%s, %s %s: %s", name, c.method, c.body, a.body)
			assert.Equal(t, c.id, string(answerID(t, a.body)), "%s, %s %s", name, c.method, c.body)
			code, _ := rpcErr(t, a.body)
			assert.Equal(t, codeSession, code, a.body)
		}
	}
}
