package mcp

import (
	"net/http"
	"time"
)

// readDeadliner is what net/http's own ResponseWriter has, and what http.ResponseController
// asks for first.
type readDeadliner interface{ SetReadDeadline(time.Time) error }

// setReadDeadline sets w's connection's read deadline as http.ResponseController does, asking
// w itself first: the controller is an allocation of its own, twice a request (readDeadline,
// bufferBody). A writer that wraps another is unwrapped by the controller; one without
// deadlines (a test recorder) keeps none.
func setReadDeadline(w http.ResponseWriter, t time.Time) {
	if d, ok := w.(readDeadliner); ok {
		_ = d.SetReadDeadline(t)
		return
	}
	_ = http.NewResponseController(w).SetReadDeadline(t)
}
