package mcp

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Only the revisions the gateway speaks pass the Mcp-Protocol-Version header: any other,
// before or after them or no date at all, gets -32022 with the list (mcp-go took any value
// sorting after 2026-07-28, as "garbage", for the sessionless revision and asked for a _meta
// field instead). The answer carries the request's id when it can be read.
func TestUnknownProtocolVersionHeadersAreNamed(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	session := h.initialize(t)
	for _, v := range []string{"garbage", "latest", "v2025-06-18", "2099-01-01", "2026-07-29", "1999-01-01", "2025-6-18"} {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			body, wantID := "", "null"
			if method == http.MethodPost {
				body, wantID = `{"jsonrpc":"2.0","id":"q-6","method":"tools/list"}`, `"q-6"`
			}
			a := h.raw(t, method, body, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": v})
			assertUnsupportedVersion(t, a, wantID, "unsupported Mcp-Protocol-Version", fmt.Sprintf("%s %q", method, v))
		}
	}
	for _, id := range []string{`null`, `1.5`} { // an id that cannot be used is not echoed
		a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "garbage"})
		assert.Equal(t, "null", string(answerID(t, a.body)), "id %s: %s", id, a.body)
	}
	for _, v := range []string{"2025-06-18", "2025-03-26"} {
		a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": v})
		assert.Equal(t, http.StatusOK, a.status, "%q: %s", v, a.body)
	}
}

// assertUnsupportedVersion checks the documented -32022 refusal of a protocol version: 400 in
// JSON, words holding named and the revisions the gateway speaks, those in data.supported,
// and the request's id (wantID). The header's refusal and the _meta field's are the same.
func assertUnsupportedVersion(t *testing.T, a rawAnswer, wantID, named, what string) {
	t.Helper()
	assert.Equal(t, http.StatusBadRequest, a.status, "%s: %s", what, a.body)
	require.True(t, strings.HasPrefix(a.header.Get("Content-Type"), "application/json"), "%s: %s", what, a.body)
	code, msg := rpcErr(t, a.body)
	assert.Equal(t, -32022, code, "%s: %s", what, a.body)
	assert.Contains(t, msg, named, what)
	assert.Contains(t, msg, "this gateway speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05", what)
	assert.Contains(t, a.body, `"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`, what)
	assert.Equal(t, wantID, string(answerID(t, a.body)), "%s: %s", what, a.body)
}
