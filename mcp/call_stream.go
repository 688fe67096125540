package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// A call's notifications (its progress, its logging messages) go on the stream of the POST
// that carries the call, as the transport wants ("These messages SHOULD relate to the
// originating client request"). mcp-go v1.2.1 sends every notification through the session's
// one channel, which a POST's stream and the session's GET stream both read
// (server/streamable_http.go: handlePost's forwarder and handleGet's writer), so a call's
// progress landed on either, half on the GET stream. callStreams gives each POST whose client
// takes a stream a queue of its own, which the call's notifications take instead (notifyCall),
// written before whatever mcp-go writes on that response next, its answer included.

// maxQueuedNotes bounds the notifications waiting for a slow client, as mcp-go's channel does
// (100); beyond it they are dropped, as mcp-go drops them: a call never waits for its client.
const maxQueuedNotes = 100

type callStreamKey struct{}

// callStreams gives the POSTs whose client accepts an event stream a callStream, in their
// context for notifyCall and as the writer mcp-go answers on.
func (g *Gateway) callStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flusher, ok := w.(http.Flusher)
		if r.Method != http.MethodPost || !ok || !acceptsStream(r) {
			next.ServeHTTP(w, r)
			return
		}
		cs := &callStream{w: w, flusher: flusher, header: w.Header().Clone()}
		defer cs.end()
		next.ServeHTTP(cs, r.WithContext(context.WithValue(r.Context(), callStreamKey{}, cs)))
	})
}

// acceptsStream reports whether a request's Accept header takes text/event-stream.
func acceptsStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/event-stream") {
			return true
		}
	}
	return false
}

// notifyCall sends a notification of the call ctx belongs to: on its POST's stream when its
// client takes one (callStreams), else through mcp-go, on whichever stream of the session.
func notifyCall(ctx context.Context, srv *mcpserver.MCPServer, method string, params map[string]any) {
	if cs, ok := ctx.Value(callStreamKey{}).(*callStream); ok {
		// As mcp-go does for a notification: its answer then goes on the stream too, not as JSON.
		if s, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithStreamableHTTPConfig); ok && s.Initialized() {
			s.UpgradeToSSEWhenReceiveNotification()
			n := mcpgo.JSONRPCNotification{JSONRPC: mcpgo.JSONRPC_VERSION, Notification: mcpgo.Notification{
				Method: method, Params: mcpgo.NotificationParams{AdditionalFields: params}}}
			if cs.send(n) {
				return
			}
		}
	}
	_ = srv.SendNotificationToClient(ctx, method, params)
}

// callStream is the response of one POST, with the call's notifications queued for it.
type callStream struct {
	w       http.ResponseWriter
	flusher http.Flusher
	header  http.Header // mcp-go's, apart: net/http's may not be touched while the writer writes

	qmu     sync.Mutex // guards queue, started and over; never held while writing
	queue   [][]byte   // SSE events
	started bool       // the writer runs
	over    bool       // the POST's handler returned

	wake          chan struct{} // these three are made with the writer, at the first notification:
	stop, stopped chan struct{} // most calls send none

	wmu   sync.Mutex // serialises the writes on w
	wrote bool       // the header is out
}

// send queues n, and reports false once the POST is answered: then it goes elsewhere.
func (cs *callStream) send(n mcpgo.JSONRPCNotification) bool {
	b, err := json.Marshal(n)
	if err != nil {
		return false
	}
	ev := fmt.Appendf(nil, "event: message\ndata: %s\n\n", b)
	cs.qmu.Lock()
	if cs.over {
		cs.qmu.Unlock()
		return false
	}
	if len(cs.queue) < maxQueuedNotes {
		cs.queue = append(cs.queue, ev)
	}
	if !cs.started {
		cs.started = true
		cs.wake, cs.stop, cs.stopped = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		go cs.run()
	}
	cs.qmu.Unlock()
	select {
	case cs.wake <- struct{}{}:
	default:
	}
	return true
}

// run writes the queued notifications as they come, until the POST's handler returns.
func (cs *callStream) run() {
	defer close(cs.stopped)
	for {
		select {
		case <-cs.wake:
			cs.wmu.Lock()
			cs.writeQueued(true)
			cs.wmu.Unlock()
		case <-cs.stop:
			return
		}
	}
}

// end stops the writer when the POST's handler returns; what is still queued came after its
// answer, and is dropped.
func (cs *callStream) end() {
	cs.qmu.Lock()
	cs.over = true
	started := cs.started
	cs.qmu.Unlock()
	if started {
		close(cs.stop)
		<-cs.stopped
	}
}

// writeQueued writes the queued notifications, wmu held. The first makes the response a
// stream (ours), unless mcp-go's header comes first and is not one: a JSON answer, after
// which they are late.
func (cs *callStream) writeQueued(ours bool) {
	if !ours && !cs.wrote { // mcp-go writes: its header is the response's
		h := cs.w.Header()
		clear(h)
		maps.Copy(h, cs.header)
	}
	cs.qmu.Lock()
	queue := cs.queue
	cs.queue = nil
	cs.qmu.Unlock()
	if len(queue) == 0 {
		return
	}
	if !cs.wrote {
		h := cs.w.Header()
		if !ours && !strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
			return
		}
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("Connection", "keep-alive")
		cs.w.WriteHeader(http.StatusOK)
		cs.wrote = true
	}
	for _, ev := range queue {
		if _, err := cs.w.Write(ev); err != nil {
			return
		}
	}
	cs.flusher.Flush()
}

func (cs *callStream) Header() http.Header { return cs.header }

// WriteHeader writes the queued notifications first; after ours, mcp-go's header is one too
// many (it sets the same stream's).
func (cs *callStream) WriteHeader(status int) {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	cs.writeQueued(false)
	if cs.wrote {
		return
	}
	cs.wrote = true
	cs.w.WriteHeader(status)
}

// Write writes the queued notifications first, so that they come before the answer.
func (cs *callStream) Write(p []byte) (int, error) {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	cs.writeQueued(false)
	cs.wrote = true
	return cs.w.Write(p)
}

func (cs *callStream) Flush() {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	cs.flusher.Flush()
}

// Unwrap gives http.ResponseController the response's own writer (deadlines).
func (cs *callStream) Unwrap() http.ResponseWriter { return cs.w }
