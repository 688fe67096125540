package mcp

import (
	"bytes"
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
// originating client request"), and nowhere else. mcp-go v1.2.1 sends every notification
// through the session's one channel, which a POST's stream and the session's GET stream both
// read (server/streamable_http.go: handlePost's forwarder and handleGet's writer), so a call's
// progress landed on either, half on the GET stream or on another call's POST. callStreams
// gives each POST whose client takes a stream a queue of its own, which the call's
// notifications take instead (notifyCall), written before whatever mcp-go writes on that
// response next; its answer ends them. A POST that takes JSON only gets none of them.

// maxQueuedNotes bounds the notifications waiting for a slow client, as mcp-go's channel does
// (100); beyond it they are dropped, as mcp-go drops them: a call never waits for its client.
const maxQueuedNotes = 100

type callStreamKey struct{}

// callStreams gives the POSTs whose client accepts an event stream a callStream, in their
// context for notifyCall and as the writer mcp-go answers on. The others are answered with
// JSON, always: mcp-go, once any notification went to a session, answers every later POST
// of it that can be flushed with a stream, whatever its Accept header says.
func (g *Gateway) callStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flusher, ok := w.(http.Flusher)
		switch {
		case r.Method != http.MethodPost || !ok:
			next.ServeHTTP(w, r)
		case !acceptsStream(r):
			next.ServeHTTP(jsonOnly{w}, r)
		default:
			cs := &callStream{Context: r.Context(), w: w, flusher: flusher, header: w.Header().Clone()}
			defer cs.end()
			next.ServeHTTP(cs, r.WithContext(cs))
		}
	})
}

// jsonOnly is the response of a POST that takes no stream: without Flush, mcp-go answers it
// with JSON (its CanStream is false).
type jsonOnly struct{ http.ResponseWriter }

// Unwrap gives http.ResponseController the response's own writer (deadlines).
func (j jsonOnly) Unwrap() http.ResponseWriter { return j.ResponseWriter }

// acceptsStream reports whether a request's Accept header takes text/event-stream.
func acceptsStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/event-stream") {
			return true
		}
	}
	return false
}

// notifyCall sends a notification of the call ctx belongs to on its POST's stream, until its
// answer (callStreams). A call over HTTP with no stream of its own (a POST that takes JSON
// only, a batch's member) gets none: on the session's channel it would reach the GET stream
// or another call's POST. In process (corral call) the session is the caller's own.
func notifyCall(ctx context.Context, srv *mcpserver.MCPServer, method string, params map[string]any) {
	if cs, ok := ctx.Value(callStreamKey{}).(*callStream); ok {
		cs.send(mcpgo.JSONRPCNotification{JSONRPC: mcpgo.JSONRPC_VERSION, Notification: mcpgo.Notification{
			Method: method, Params: mcpgo.NotificationParams{AdditionalFields: params}}})
		return
	}
	if _, overHTTP := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithStreamableHTTPConfig); overHTTP {
		return
	}
	_ = srv.SendNotificationToClient(ctx, method, params)
}

// callStream is the response of one POST, with the call's notifications queued for it.
type callStream struct {
	// The POST's context, which its handlers get with the stream in it (Value): every POST
	// paid an allocation for a context.WithValue of its own.
	context.Context

	w       http.ResponseWriter
	flusher http.Flusher
	header  http.Header // mcp-go's, apart: net/http's may not be touched while the writer writes

	qmu     sync.Mutex // guards queue, started and over; never held while writing
	queue   [][]byte   // SSE events
	started bool       // the writer runs
	over    bool       // the answer is written, or the POST's handler returned: no more

	wake          chan struct{} // these three are made with the writer, at the first notification:
	stop, stopped chan struct{} // most calls send none

	wmu    sync.Mutex // serialises the writes on w, and guards the four below
	wrote  bool       // the header is out
	stream bool       // ... and makes the response an event stream
	theirs bool       // mcp-go wrote its header (to us)
	frame  bool       // mcp-go answers JSON on our stream: its answer is framed as an event
}

// Value finds the stream for notifyCall, and anything else in the POST's context.
func (cs *callStream) Value(key any) any {
	if _, ok := key.(callStreamKey); ok {
		return cs
	}
	return cs.Context.Value(key)
}

// send queues n, unless the POST is answered: what comes after the answer is dropped.
func (cs *callStream) send(n mcpgo.JSONRPCNotification) {
	b, err := json.Marshal(n)
	if err != nil {
		return
	}
	ev := fmt.Appendf(nil, "event: message\ndata: %s\n\n", b)
	cs.qmu.Lock()
	if cs.over {
		cs.qmu.Unlock()
		return
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
}

// run writes the queued notifications as they come, until the POST's handler returns.
func (cs *callStream) run() {
	defer close(cs.stopped)
	for {
		select {
		case <-cs.wake:
			cs.wmu.Lock()
			if !cs.wrote || cs.stream { // else a JSON answer is out, and took the queue
				cs.writeEvents(cs.take(false))
			}
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

// take returns the queued notifications; answered: the answer comes next, and nothing after it.
func (cs *callStream) take(answered bool) [][]byte {
	cs.qmu.Lock()
	defer cs.qmu.Unlock()
	q := cs.queue
	cs.queue = nil
	cs.over = cs.over || answered
	return q
}

// writeEvents writes events, wmu held; the first makes the response a stream (ours) when
// nothing was written yet.
func (cs *callStream) writeEvents(events [][]byte) {
	if len(events) == 0 {
		return
	}
	if !cs.wrote {
		h := cs.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("Connection", "keep-alive")
		cs.w.WriteHeader(http.StatusOK)
		cs.wrote, cs.stream = true, true
	}
	for _, ev := range events {
		if _, err := cs.w.Write(ev); err != nil {
			return
		}
	}
	cs.flusher.Flush()
}

func (cs *callStream) Header() http.Header { return cs.header }

// WriteHeader takes mcp-go's header, which comes with its answer or its own first event.
func (cs *callStream) WriteHeader(status int) {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	cs.theirHeader(status)
}

// theirHeader writes mcp-go's header, wmu held. After our stream's it is one too many: a
// JSON answer is then framed as an event. A JSON answer (or none: 202) ends the call's
// notifications; those still queued go first, on a stream, when the status allows one.
func (cs *callStream) theirHeader(status int) {
	cs.theirs = true
	asJSON := !strings.HasPrefix(cs.header.Get("Content-Type"), "text/event-stream")
	if cs.wrote {
		cs.frame = asJSON
		return
	}
	h := cs.w.Header()
	clear(h)
	maps.Copy(h, cs.header)
	if !asJSON { // mcp-go streams itself (a notification of the session's)
		cs.w.WriteHeader(status)
		cs.wrote, cs.stream = true, true
		cs.writeEvents(cs.take(false))
		return
	}
	if events := cs.take(true); status == http.StatusOK && len(events) > 0 {
		cs.writeEvents(events)
		cs.frame = true
		return
	}
	cs.w.WriteHeader(status)
	cs.wrote = true
}

// Write writes the queued notifications first, so that they come before the answer, and none
// after it. mcp-go writes each message at once (json.Encoder.Encode, writeSSEEvent).
func (cs *callStream) Write(p []byte) (int, error) {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	if !cs.theirs {
		cs.theirHeader(http.StatusOK)
	}
	switch {
	case cs.frame:
		cs.writeEvents(cs.take(true))
		if _, err := fmt.Fprintf(cs.w, "event: message\ndata: %s\n\n", bytes.TrimRight(p, "\r\n")); err != nil {
			return 0, err
		}
		return len(p), nil
	case cs.stream:
		cs.writeEvents(cs.take(isAnswer(p)))
	}
	return cs.w.Write(p)
}

// isAnswer reports whether an SSE event of mcp-go's carries a JSON-RPC answer (result or
// error), not a notification or request; it reads the object's keys up to the first of those.
func isAnswer(event []byte) bool {
	_, data, ok := bytes.Cut(event, []byte("data: "))
	if !ok {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		switch key {
		case "result", "error":
			return true
		case "method":
			return false
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

func (cs *callStream) Flush() {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	cs.flusher.Flush()
}

// Unwrap gives http.ResponseController the response's own writer (deadlines).
func (cs *callStream) Unwrap() http.ResponseWriter { return cs.w }
