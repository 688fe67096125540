package mcp

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tools/list gives every tool in one page, so any cursor sent with it is one the gateway never
// gave, base64 or not: mcp-go read "bQ==" as a tool name to start after and gave a wrong page.
// No cursor, a null one or an empty one is the first (and only) page.
func TestToolsListRefusesCursorsItNeverGave(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	session := h.initialize(t)
	for _, version := range []string{"2025-06-18", "2025-03-26"} {
		header := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": version}
		var all struct {
			Result struct {
				Tools      []json.RawMessage `json:"tools"`
				NextCursor *string           `json:"nextCursor"`
			} `json:"result"`
		}
		for _, params := range []string{``, `,"params":{}`, `,"params":{"cursor":null}`, `,"params":{"cursor":""}`} {
			a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list"`+params+`}`, header)
			require.Equal(t, http.StatusOK, a.status, "%s: %s", params, a.body)
			require.NoError(t, json.Unmarshal([]byte(a.body), &all), a.body)
			assert.Nil(t, all.Result.NextCursor, "tools/list gave a nextCursor: the check of cursors it gave must learn its pages")
			assert.Len(t, all.Result.Tools, len(h.g.known), params)
		}
		for _, cursor := range []string{`"bQ=="`, `"eyJ4IjoxfQ=="`, `"bGlzdF9hdmFpbGFibGVfZGV2aWNlcw=="`, `"zzz"`} {
			a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":"c","method":"tools/list","params":{"cursor":`+cursor+`}}`, header)
			assert.Equal(t, http.StatusOK, a.status, "%s: %s", cursor, a.body)
			code, msg := rpcErr(t, a.body)
			assert.Equal(t, codeInvalidParams, code, "%s: %s", cursor, a.body)
			assert.Contains(t, msg, "cursor is not one this gateway gave", cursor)
			assert.NotContains(t, a.body, `"tools"`, cursor)
			assert.Equal(t, `"c"`, string(answerID(t, a.body)), cursor)
		}
	}
}
