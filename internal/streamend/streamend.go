// Package streamend ends a streamed HTTP response on the server's side (an MCP listen stream
// the gateway closes) so that a healthy client sees the stream end cleanly, while a write
// stuck on a connection that died unnoticed still ends soon.
package streamend

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// WriteBound bounds the writes of a stream once it is ended: the handler's last write and
// net/http's terminating zero chunk. A healthy connection takes them in far less; a dead one
// would hold them for ever. A deadline of now instead cut the zero chunk too, and the client
// read "unexpected EOF" where the server meant a clean end.
const WriteBound = time.Second

// Stream is one response being streamed that the server may end before the client does.
type Stream struct {
	cancel context.CancelFunc
	rc     *http.ResponseController

	mu       sync.Mutex
	returned bool
}

// Start returns the stream of w and r under a context that End cancels. Call Done when the
// handler serving it returns.
func Start(w http.ResponseWriter, r *http.Request) (*Stream, *http.Request) {
	ctx, cancel := context.WithCancel(r.Context())
	return &Stream{cancel: cancel, rc: http.NewResponseController(w)}, r.WithContext(ctx)
}

// End ends the stream: its context is cancelled, so the handler returns and net/http finishes
// the response (a clean end of stream for the client), and the writes still to come fail
// after WriteBound. After Done it does nothing: the connection may serve another request by
// then, which a deadline must not cut.
func (s *Stream) End() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.returned {
		return
	}
	s.cancel()
	_ = s.rc.SetWriteDeadline(time.Now().Add(WriteBound))
}

// Done tells the stream its handler returned.
func (s *Stream) Done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.returned = true
	s.cancel()
}
