package mcp

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/corral-farm/corral/internal/streamend"
)

// A client ends its session with DELETE, and the transport then wants 404 for any request
// naming it, so that the client opens a new one. Ids carry their own proof (sessions.go), and
// any gateway of the farm takes a known id up, so forgetting the session is not enough: the
// end is marked in NATS, next to the session's entry (broker.Client.EndSession), and each
// gateway keeps the ids ended so far in memory, from a watch of those marks. A request of a
// session this gateway keeps live costs nothing more (an ended session is never live); one
// that takes a session up (not live here) reads the mark once, as the watch may not have
// brought it yet. A mark lasts as long as the session's entry would (the bucket's TTL, 24 h).

// farmSessionEnds is what a farm offers to end sessions on all its gateways (broker.Client).
type farmSessionEnds interface {
	EndSession(ctx context.Context, session string) error
	SessionEnded(ctx context.Context, session string) (bool, error)
	FollowEndedSessions(ended func(session string))
}

// maxEndedKept bounds the ended ids a gateway keeps (about 100 bytes each); past it the oldest
// are let go, long after their clients moved on to a new session.
const maxEndedKept = 100_000

// takeUpRead bounds the read of a session's end when a gateway takes the session up.
const takeUpRead = 2 * time.Second

// endedIDs are the sessions clients ended, oldest first; sessions.mu guards them.
type endedIDs struct {
	ids   map[string]struct{}
	order []string
}

func (e *endedIDs) has(id string) bool {
	_, ok := e.ids[id]
	return ok
}

func (e *endedIDs) add(id string) {
	if e.has(id) {
		return
	}
	e.ids[id] = struct{}{}
	e.order = append(e.order, id)
	if len(e.order) > maxEndedKept {
		delete(e.ids, e.order[0])
		e.order = e.order[1:]
	}
}

// follow learns of the sessions other gateways end, once per gateway: the first guard's.
func (s *sessions) follow(g *Gateway) {
	s.following.Do(func() {
		s.farm = g.farm
		s.farm.FollowEndedSessions(s.endedElsewhere)
	})
}

// endForGood ends session id for a client's DELETE: marked in NATS first, so that a failure
// leaves it working everywhere (and mcp-go answers 500 with the reason), then here.
func (s *sessions) endForGood(ctx context.Context, id string) error {
	if s.farm != nil {
		if err := s.farm.EndSession(ctx, id); err != nil {
			return fmt.Errorf("the session was not ended: %w", err)
		}
	}
	s.markEnded(id)
	return nil
}

// endedElsewhere takes note of a session ended (on another gateway, or on this one, seen
// again through the watch), and frees what this gateway kept of it.
func (s *sessions) endedElsewhere(id string) {
	if s.markEnded(id) && s.end != nil {
		s.end(id)
	}
}

// markEnded records id as ended, and stops keeping it live, even with requests running (they
// finish; no new one enters); it reports whether it was live.
func (s *sessions) markEnded(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ends.add(id)
	ls, live := s.live[id]
	if live {
		s.drop(ls)
		ls.streams.endAll()
	}
	return live
}

// streamEnds end the GET streams of a session: mcp-go leaves them open when it forgets the
// session, and on a gateway that did not answer the DELETE nothing else would end them.
type streamEnds map[*http.Request]func()

func (se streamEnds) endAll() {
	for _, end := range se {
		end()
	}
}

// endable makes a GET stream of session id end when the session does: it returns the request
// to serve, and done, to call when it returns.
func (s *sessions) endable(w http.ResponseWriter, r *http.Request, id string) (*http.Request, func()) {
	stream, ended := streamend.Start(w, r) // a clean end, or within a bound on a dead connection
	s.mu.Lock()
	ls, ok := s.live[id]
	if ok {
		if ls.streams == nil {
			ls.streams = streamEnds{}
		}
		ls.streams[r] = stream.End
	}
	s.mu.Unlock()
	return ended, func() {
		s.mu.Lock()
		if ok {
			delete(ls.streams, r)
		}
		s.mu.Unlock()
		stream.Done()
	}
}

// endedInFarm reads whether a session this gateway takes up was ended on another gateway
// whose mark the watch has not brought yet. When NATS cannot tell, the session goes on: NATS
// down must not end every session.
func (s *sessions) endedInFarm(ctx context.Context, id string) bool {
	if s.farm == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, takeUpRead)
	defer cancel()
	ended, err := s.farm.SessionEnded(ctx, id)
	if err != nil {
		s.log.Warn("could not read whether a session taken up was ended; it goes on", "session", shortSession(id), "err", err)
		return false
	}
	if ended {
		s.markEnded(id)
	}
	return ended
}

// refuseEnded answers a request naming a session its client ended.
func refuseEnded(g *Gateway, w http.ResponseWriter, r *http.Request, principal string) {
	g.metrics.deny(reasonSession)
	g.log.Info("refused request: session ended by DELETE", "reason", reasonSession, "remote", r.RemoteAddr, "principal", principal)
	writeRPCError(w, http.StatusNotFound, refusalID(r), codeSession,
		"session ended by DELETE: send initialize without Mcp-Session-Id to open a new session")
}

// shortSession names a session in logs by the first characters of its nonce, as the id, with
// no token, drives a gateway without a policy.
func shortSession(id string) string {
	if len(id) > len(sessionPrefix)+8 {
		return id[:len(sessionPrefix)+8] + "…"
	}
	return id
}
