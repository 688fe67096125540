package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// sessionRequired answers a request of a revision with sessions (before 2026-07-28) that
// carries no Mcp-Session-Id and is not initialize: a client that skipped initialize. The
// transport says such a request SHOULD get 400. mcp-go would answer a POST 404 "Invalid
// session ID", which reads as a session that expired; a DELETE 500; and a GET it would serve
// with a stream under a session made up for it, held until the client goes (a client could
// fill every connection the gateway takes). This says what to send instead. A bogus id is
// guard's (sessions.go); a request of the revision without sessions goes on untouched, and
// so does each message of a batch (batches runs before this and hands them on one by one).
func (g *Gateway) sessionRequired(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(mcpserver.HeaderKeySessionID) != "" || mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) {
			next.ServeHTTP(w, r)
			return
		}
		switch r.Method {
		case http.MethodGet:
			writeRPCError(w, http.StatusBadRequest, nil, codeSession,
				"no Mcp-Session-Id: a GET stream belongs to a session in this protocol revision; "+initializeFirst)
			return
		case http.MethodDelete:
			writeRPCError(w, http.StatusBadRequest, nil, codeSession,
				"no Mcp-Session-Id: DELETE ends the session its Mcp-Session-Id names, and this request names none, so nothing was ended; "+
					"pass the Mcp-Session-Id of the session to end")
			return
		case http.MethodPost:
		default:
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
		if json.Unmarshal(bodyOf(r), &msg) != nil || msg.Method == "" || msg.Method == string(mcpgo.MethodInitialize) ||
			mcpgo.IsModernProtocol(msg.Params.Meta.ProtocolVersion()) {
			next.ServeHTTP(w, r) // not JSON, a response, initialize or the sessionless revision: mcp-go's
			return
		}
		writeRPCError(w, http.StatusBadRequest, msg.ID, codeSession, fmt.Sprintf(
			"no Mcp-Session-Id: %s needs a session in this protocol revision; %s", msg.Method, initializeFirst))
	})
}

// initializeFirst is what a client without a session does.
const initializeFirst = "send initialize first (without Mcp-Session-Id), then pass the Mcp-Session-Id header of its answer on every later request " +
	"(or speak revision " + mcpgo.ProtocolVersion20260728 + ", which has no sessions)"
