package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// sessionRequired answers a request of a revision with sessions (before 2026-07-28) that
// carries no Mcp-Session-Id and is not initialize: a client that skipped initialize. mcp-go
// would answer 404 "Invalid session ID", which reads as a session that expired; this says
// what to send. A bogus id is guard's (sessions.go); a request of the revision without
// sessions, a batch (batch.go) and anything but a POST go on untouched.
func (g *Gateway) sessionRequired(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := bodyOf(r)
		if r.Method != http.MethodPost || r.Header.Get(mcpserver.HeaderKeySessionID) != "" ||
			mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) || isBatch(body) {
			next.ServeHTTP(w, r)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta *mcpgo.Meta `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.Method == "" || msg.Method == string(mcpgo.MethodInitialize) ||
			mcpgo.IsModernProtocol(msg.Params.Meta.ProtocolVersion()) {
			next.ServeHTTP(w, r) // not JSON, a response, initialize or the sessionless revision: mcp-go's
			return
		}
		writeRPCError(w, http.StatusBadRequest, msg.ID, codeSession, fmt.Sprintf(
			"no Mcp-Session-Id: %s needs a session in this protocol revision; send initialize first (without Mcp-Session-Id), "+
				"then pass the Mcp-Session-Id header of its answer on every later request (or speak revision %s, which has no sessions)",
			msg.Method, mcpgo.ProtocolVersion20260728))
	})
}
