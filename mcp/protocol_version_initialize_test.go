package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An initialize whose Mcp-Protocol-Version header names a revision the gateway does not speak
// gets the documented -32022 with the list, as any other request does: mcp-go accepted one
// sorting before 2026-07-28 ("1999-01-01") and answered one after it ("2099-01-01", "latest",
// "garbage") with a raw -32602 asking for a _meta field. An initialize naming in its header
// the earlier revision its body asks for still negotiates, as those revisions do in
// initialize: the answer names a revision the gateway speaks.
func TestInitializeWithUnknownProtocolVersionHeaderIsNamed(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	initialize := func(asked string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":"i-1","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, asked)
	}
	for _, v := range []string{"1999-01-01", "2099-01-01", "2026-07-29", "latest", "garbage"} {
		a := h.raw(t, http.MethodPost, initialize(mcpgo.LATEST_LEGACY_PROTOCOL_VERSION), map[string]string{"Mcp-Protocol-Version": v})
		assertUnsupportedVersion(t, a, `"i-1"`, "unsupported Mcp-Protocol-Version", fmt.Sprintf("initialize, header %q", v))
		assert.Empty(t, a.header.Get("Mcp-Session-Id"), "header %q: a session was made", v)
	}
	for _, v := range []string{"2099-01-01", "2026-07-29"} { // the header naming what the body asks for, sessionless
		a := h.raw(t, http.MethodPost, initialize(v), map[string]string{"Mcp-Protocol-Version": v})
		assertUnsupportedVersion(t, a, `"i-1"`, "unsupported Mcp-Protocol-Version", fmt.Sprintf("initialize asking for %q", v))
	}

	for _, c := range []struct{ header, asked string }{
		{"", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-06-18", "2025-03-26"},
		{"1999-01-01", "1999-01-01"}, // negotiated down
		{"2025-12-01", "2025-12-01"},
	} {
		var header map[string]string
		if c.header != "" {
			header = map[string]string{"Mcp-Protocol-Version": c.header}
		}
		a := h.raw(t, http.MethodPost, initialize(c.asked), header)
		require.Equal(t, http.StatusOK, a.status, "header %q asking %q: %s", c.header, c.asked, a.body)
		var res struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(a.body), &res), a.body)
		assert.True(t, mcpgo.IsValidProtocolVersion(res.Result.ProtocolVersion), "header %q asking %q: %s", c.header, c.asked, a.body)
	}
}
