package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// protocolVersion answers a request whose Mcp-Protocol-Version header names a revision before
// 2026-07-28 that mcp-go does not know: mcp-go says "Unsupported protocol version" in plain
// text, without the ones it speaks. This names them, in the error mcp-go gives a later
// revision it does not know (code -32022, data.supported). initialize is left alone: it
// negotiates the version in its body, and mcp-go ignores the header there. A later revision
// is mcp-go's, which already lists them.
func (g *Gateway) protocolVersion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get(mcpgo.HeaderProtocolVersion)
		if v == "" || mcpgo.IsValidProtocolVersion(v) || mcpgo.IsModernProtocol(v) || isInitialize(r) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
			"code": mcpgo.UNSUPPORTED_PROTOCOL_VERSION,
			"message": fmt.Sprintf("unsupported Mcp-Protocol-Version %q: this gateway speaks %s; send the version initialize agreed on "+
				"(or no header, which means 2025-03-26)", shorten(v, 40), strings.Join(mcpgo.ValidProtocolVersions, ", ")),
			"data": mcpgo.UnsupportedProtocolVersionData{Supported: mcpgo.ValidProtocolVersions, Requested: shorten(v, 40)},
		}})
	})
}

// isInitialize reports whether r is a POST of one initialize request.
func isInitialize(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(bodyOf(r), &msg) == nil && msg.Method == string(mcpgo.MethodInitialize)
}
