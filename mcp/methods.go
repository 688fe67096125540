package mcp

import (
	"fmt"
	"net/http"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// allowedMethods answers a method the transport does not define (PUT, PATCH, OPTIONS…) with
// 405 Method Not Allowed and the methods it has, where mcp-go said 404, as if /mcp were not
// there. HEAD goes on: mcp-go answers it, for probes.
func (g *Gateway) allowedMethods(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodHead:
			next.ServeHTTP(w, r)
			return
		}
		allow, uses := methodsOf(r)
		w.Header().Set("Allow", allow)
		writeRPCError(w, http.StatusMethodNotAllowed, nil, codeInvalidRequest, fmt.Sprintf(
			"HTTP method %s is not allowed on /mcp: %s", r.Method, uses))
	})
}

// methodsOf names the HTTP methods of the transport as a 405's Allow header does, and what
// they are for, in the request's protocol revision: from 2026-07-28 there are no sessions,
// and only POST is left (mcp-go answers GET and DELETE so, with Allow: POST).
func methodsOf(r *http.Request) (allow, uses string) {
	if mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) {
		return http.MethodPost, "POST sends a message (from protocol revision " + mcpgo.ProtocolVersion20260728 +
			" there are no sessions: no GET stream, no DELETE; subscriptions/listen streams the server's notifications)"
	}
	return "GET, POST, DELETE", "POST sends a message, GET opens a stream of the session's messages, DELETE ends the session"
}
