package mcp

import (
	"fmt"
	"net/http"
)

// mcpMethods are the HTTP methods of the streamable HTTP transport, as the Allow header of a
// 405 names them.
const mcpMethods = "GET, POST, DELETE"

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
		w.Header().Set("Allow", mcpMethods)
		writeRPCError(w, http.StatusMethodNotAllowed, nil, codeInvalidRequest, fmt.Sprintf(
			"HTTP method %s is not allowed on /mcp: POST sends a message, GET opens a stream of the session's messages, DELETE ends the session", r.Method))
	})
}
