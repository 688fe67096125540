package mcp

import (
	"net/http"
	"slices"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/internal/streamend"
)

// maxListenStreams bounds the GET streams one session keeps open. mcp-go serves any number,
// each message on one of them, and none ends by itself: its heartbeat keeps it from being idle,
// and the session it keeps busy is never forgotten (sessions.go). Some clients open a second
// one while the first is still there (or not yet seen gone), so two are served.
const maxListenStreams = 2

// listenStreams keeps the GET streams open per session, oldest first.
type listenStreams struct {
	mu   sync.Mutex
	open map[string][]*listenStream
}

// listenStream is one open GET stream: end closes it (streamend: cleanly, or within a bound
// on a dead connection).
type listenStream struct {
	end func()
}

// boundListenStreams lets a session hold at most maxListenStreams GET streams: a GET beyond
// that closes the session's oldest stream (the server may close a stream at any time; a
// client that wants one opens it again), so that a client whose old connection died
// unnoticed is not refused, and one session cannot hold more than its share of connections.
// A DELETE of the session closes its streams. A GET without a session never gets here
// (sessionRequired).
func (g *Gateway) boundListenStreams(next http.Handler) http.Handler {
	ls := &listenStreams{open: map[string][]*listenStream{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(mcpserver.HeaderKeySessionID)
		if id == "" || mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) {
			next.ServeHTTP(w, r)
			return
		}
		switch r.Method {
		case http.MethodGet:
		case http.MethodDelete: // mcp-go forgets the session but leaves its streams open
			next.ServeHTTP(w, r)
			ls.endAll(id)
			return
		default:
			next.ServeHTTP(w, r)
			return
		}
		stream, r := streamend.Start(w, r)
		s := &listenStream{end: stream.End}
		ls.add(id, s)
		defer ls.remove(id, s)
		defer stream.Done()
		next.ServeHTTP(w, r)
	})
}

// add records s as id's newest stream and ends the streams beyond the cap. They end under the
// lock: a stream still recorded has not returned (remove runs first), so its connection is
// not yet another request's.
func (ls *listenStreams) add(id string, s *listenStream) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	streams := append(ls.open[id], s)
	if n := len(streams) - maxListenStreams; n > 0 {
		for _, old := range streams[:n] {
			old.end()
		}
		streams = slices.Clone(streams[n:])
	}
	ls.open[id] = streams
}

// endAll ends the streams of a session.
func (ls *listenStreams) endAll(id string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, s := range ls.open[id] {
		s.end()
	}
	delete(ls.open, id)
}

func (ls *listenStreams) remove(id string, s *listenStream) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	var keep []*listenStream
	for _, o := range ls.open[id] {
		if o != s {
			keep = append(keep, o)
		}
	}
	if len(keep) == 0 {
		delete(ls.open, id)
		return
	}
	ls.open[id] = keep
}
