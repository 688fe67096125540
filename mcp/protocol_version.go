package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// protocolVersion answers a request whose Mcp-Protocol-Version header names a revision the
// gateway does not speak, in the error mcp-go gives a later revision it does not know (code
// -32022, data.supported), with the ones it speaks. mcp-go alone said "Unsupported protocol
// version" in plain text for an unknown revision sorting before 2026-07-28, and took any
// value sorting after it ("garbage", "latest", "2099-01-01": its check compares strings) for
// the sessionless revision, asking for a _meta field instead, on initialize too. The one
// header let through is an initialize's naming the revision its body asks for, before
// 2026-07-28: those revisions negotiate in initialize, whose answer names the one the gateway
// speaks instead.
func (g *Gateway) protocolVersion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get(mcpgo.HeaderProtocolVersion)
		if v == "" || mcpgo.IsValidProtocolVersion(v) || negotiates(r, v) {
			next.ServeHTTP(w, r)
			return
		}
		writeUnsupportedVersion(w, usableID(r), fmt.Sprintf("unsupported Mcp-Protocol-Version %q: this gateway speaks %s; "+
			"send the version initialize agreed on (or no header, which means 2025-03-26)",
			shorten(v, 40), strings.Join(mcpgo.ValidProtocolVersions, ", ")), shorten(v, 40))
	})
}

// writeUnsupportedVersion answers 400 with the error mcp-go gives a revision it does not know
// (-32022, data.supported: the ones the gateway speaks; data.requested), for the header and
// for the _meta field alike. A nil id is null.
func writeUnsupportedVersion(w http.ResponseWriter, id json.RawMessage, msg, requested string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code":    mcpgo.UNSUPPORTED_PROTOCOL_VERSION,
		"message": msg,
		"data":    mcpgo.UnsupportedProtocolVersionData{Supported: mcpgo.ValidProtocolVersions, Requested: requested},
	}})
}

// usableID returns the id of the request r POSTs, for an error answer, when it is one the
// request could be answered with (idProblem); null otherwise, as JSON-RPC answers a request
// whose id cannot be read.
func usableID(r *http.Request) json.RawMessage {
	null := json.RawMessage("null")
	if r.Method != http.MethodPost {
		return null
	}
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(bodyOf(r), &msg) != nil || len(msg.ID) == 0 || idProblem(msg.ID) != "" {
		return null
	}
	return msg.ID
}

// negotiates reports whether r is a POST of one initialize request asking in its body for
// the revision version, one before 2026-07-28 (which negotiate there).
func negotiates(r *http.Request, version string) bool {
	if r.Method != http.MethodPost || mcpgo.IsModernProtocol(version) {
		return false
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	return json.Unmarshal(bodyOf(r), &msg) == nil && msg.Method == string(mcpgo.MethodInitialize) &&
		msg.Params.ProtocolVersion == version
}
