package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// sessions binds protocol session ids (revisions before 2026-07-28) to the principal that
// opened them, and bounds what a gateway keeps of them.
//
// An id is mcp-go's form, "mcp-session-" and a UUID, whose 122 free bits are a random nonce
// (60 bits) and a MAC (62 bits) of the nonce and the principal's name, keyed by that principal's
// own key (session_keys.go: its token hash, so a change to another principal ends nothing).
// Ids keyed by the farm-wide key of Corral before per-principal keys are taken too, so that a
// rolling upgrade ends no session (--session-keys chooses which of the two it issues).
// Any gateway with the same policy can tell whether an id was issued to the caller, with no
// shared state: an id issued to another principal, or never issued, is refused with 404
// before mcp-go sees it (mcp-go itself accepts any well-formed id, and on GET any id at all).
//
// mcp-go keeps every initialized session in memory until a DELETE that clients may never
// send. Here each gateway forgets a session idle for SessionTTL, and a principal holding
// MaxSessions live sessions that opens another makes it forget its least recently used idle
// one: mcp-go's state is freed through its own DELETE path (end). A forgotten id still
// works for its principal (another gateway may serve it, or this one after a restart): it is
// taken up again as a new live session, with nothing kept from before but what lives in NATS,
// where the client name it initialized with is kept too (session_client.go). Only a client's
// DELETE ends an id for good, on every gateway (session_end.go).
type sessions struct {
	keys principalKeys
	ttl  time.Duration
	max  int
	now  func() time.Time
	log  *slog.Logger
	end  func(id string)                  // frees mcp-go's state of a session (endSession)
	name func(ctx context.Context) string // the principal of a request ("" if none)
	// counted is told a principal's live sessions whenever they change, under mu (nil: no one).
	counted func(principal string, n int)

	// farm records and tells the sessions clients ended (nil: this gateway alone knows of
	// them); set once, by the first guard.
	farm      farmSessionEnds
	following sync.Once

	mu        sync.Mutex
	live      map[string]*liveSession
	perName   map[string]map[string]*liveSession
	nextSweep time.Time
	sweeper   chan struct{} // closed when the running sweepIdle returns; nil: none runs
	stop      chan struct{} // closed by close: sweepIdle returns (at once, if started after)
	closing   sync.Once
	ends      endedIDs
}

// liveSession is a session this gateway keeps.
type liveSession struct {
	id, principal string
	last          time.Time
	inflight      int // requests running: never forgotten while > 0 (a tool call, a GET stream)

	// The MCP client's name the session initialized with (session_client.go): whether it is
	// in NATS, and the read of it there, closed once done (nil: not read yet).
	client string
	stored bool
	looked chan struct{}

	streams streamEnds // its GET streams running here, ended with the session (session_end.go)

	levelSet bool // its client set a logging level (logging/setLevel; progress_logs.go)

	unkept string // the device select_device leased but could not store as its selection (selection_unkept.go)
}

func newSessions(pol *Policy, issue SessionKeys, secret []byte, l Limits, log *slog.Logger, name func(context.Context) string) *sessions {
	return &sessions{keys: newPrincipalKeys(pol, issue, secret), ttl: l.SessionTTL, max: l.MaxSessions, now: time.Now, log: log, name: name,
		live: map[string]*liveSession{}, perName: map[string]map[string]*liveSession{}, ends: endedIDs{ids: map[string]struct{}{}},
		stop: make(chan struct{})}
}

const sessionPrefix = "mcp-session-"

// mint returns a new id bound to principal.
func (s *sessions) mint(principal string) string {
	var u uuid.UUID
	_, _ = rand.Read(u[:8])
	u[6] = u[6]&0x0f | 0x40 // version 4
	key, _, _ := s.keys.issuing(principal)
	copy(u[8:], sessionMAC(key, principal, u[:8]))
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return sessionPrefix + u.String()
}

// verify reports whether id was minted for principal.
func (s *sessions) verify(id, principal string) bool {
	ok, _ := s.check(id, principal)
	return ok
}

// check reports whether id was minted for principal, and whether this gateway keeps it live.
func (s *sessions) check(id, principal string) (ok, kept bool) {
	// A live session was verified when it went live (minted here, or verified by guard):
	// twice a call, the HMAC would cost more than the map look-up.
	s.mu.Lock()
	ls, live := s.live[id]
	s.mu.Unlock()
	if live && ls.principal == principal {
		return true, true
	}
	return s.macMatches(id, principal), false
}

// macMatches reports whether id's MAC is principal's.
func (s *sessions) macMatches(id, principal string) bool {
	if len(id) != len(sessionPrefix)+36 || id[:len(sessionPrefix)] != sessionPrefix {
		return false
	}
	u, err := uuid.Parse(id[len(sessionPrefix):])
	if err != nil || u.String() != id[len(sessionPrefix):] {
		return false
	}
	issue, other, ok := s.keys.issuing(principal)
	if !ok {
		return false
	}
	for _, key := range [][]byte{issue, other} {
		if key == nil {
			continue
		}
		want := sessionMAC(key, principal, u[:8])
		want[0] = want[0]&0x3f | 0x80
		if hmac.Equal(want[:8], u[8:]) {
			return true
		}
	}
	return false
}

// sessionMAC is the MAC of nonce for principal under key.
func sessionMAC(key []byte, principal string, nonce []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(nonce)
	m.Write([]byte{0})
	m.Write([]byte(principal))
	return m.Sum(nil)
}

// open keeps a session of principal live, making room under its cap: one minted here
// (initialize), or one a request names (minted by another gateway, or forgotten here). It
// returns nil for a session a client ended.
func (s *sessions) open(id, principal string) *liveSession {
	s.mu.Lock()
	ls, ok := s.live[id]
	if !ok {
		if s.ends.has(id) { // never live: ending drops it
			s.mu.Unlock()
			return nil
		}
		ls = &liveSession{id: id, principal: principal}
		s.live[id] = ls
		mine := s.perName[principal]
		if mine == nil {
			mine = map[string]*liveSession{}
			s.perName[principal] = mine
		}
		mine[id] = ls
		s.tally(principal)
		if s.sweeper == nil {
			s.sweeper = make(chan struct{})
			go s.sweepIdle(s.sweeper)
		}
	}
	ls.last = s.now()
	var evicted []string
	if mine := s.perName[principal]; len(mine) > s.max {
		if old := lru(mine, id); old != nil {
			s.drop(old)
			evicted = append(evicted, old.id)
		}
	}
	idle := s.sweepLocked()
	s.mu.Unlock()
	s.ended(evicted, "cap")
	s.ended(idle, "idle")
	return ls
}

// lru is the least recently used idle session of mine other than keep.
func lru(mine map[string]*liveSession, keep string) *liveSession {
	var old *liveSession
	for _, ls := range mine {
		if ls.id != keep && ls.inflight == 0 && (old == nil || ls.last.Before(old.last)) {
			old = ls
		}
	}
	return old
}

func (s *sessions) drop(ls *liveSession) {
	delete(s.live, ls.id)
	if mine := s.perName[ls.principal]; mine != nil {
		delete(mine, ls.id)
		if len(mine) == 0 {
			delete(s.perName, ls.principal)
		}
	}
	s.tally(ls.principal)
}

// tally tells counted principal's live sessions; under mu, so that counts arrive in order.
func (s *sessions) tally(principal string) {
	if s.counted != nil {
		s.counted(principal, len(s.perName[principal]))
	}
}

// sweepEvery is how often idle sessions are looked for: a session is forgotten at most a
// quarter of its TTL late.
func (s *sessions) sweepEvery() time.Duration { return max(s.ttl/4, 10*time.Millisecond) }

// sweepLocked drops the sessions idle longer than ttl, at most every sweepEvery; it returns
// their ids.
func (s *sessions) sweepLocked() []string {
	now := s.now()
	if now.Before(s.nextSweep) {
		return nil
	}
	return s.expireLocked(now)
}

// expireLocked drops the sessions idle longer than ttl at now and returns their ids; the
// caller hands them to ended.
func (s *sessions) expireLocked(now time.Time) []string {
	s.nextSweep = now.Add(s.sweepEvery())
	var out []string
	for _, ls := range s.live {
		if ls.inflight == 0 && now.Sub(ls.last) > s.ttl {
			s.drop(ls)
			out = append(out, ls.id)
		}
	}
	return out
}

// ended frees mcp-go's state of sessions this gateway forgot.
func (s *sessions) ended(ids []string, why string) {
	for _, id := range ids {
		if s.end != nil {
			s.end(id)
		}
	}
	if len(ids) > 0 {
		s.log.Debug("forgot idle MCP sessions", "count", len(ids), "why", why)
	}
}

// forget drops a session a DELETE ended.
func (s *sessions) forget(id string) {
	s.mu.Lock()
	if ls, ok := s.live[id]; ok && ls.inflight == 0 {
		s.drop(ls)
	}
	s.mu.Unlock()
}

// enter marks a request of a session running, false if the session was ended; leave, that
// the request ended.
func (s *sessions) enter(id, principal string) bool {
	ls := s.open(id, principal)
	if ls == nil {
		return false
	}
	s.mu.Lock()
	ls.inflight++
	s.mu.Unlock()
	return true
}

func (s *sessions) leave(id string) {
	s.mu.Lock()
	if ls, ok := s.live[id]; ok {
		ls.inflight--
		ls.last = s.now()
	}
	s.mu.Unlock()
}

// count returns the live sessions (for tests and logs).
func (s *sessions) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}

// guard refuses a request whose Mcp-Session-Id was not issued to its principal, or names a
// session its client ended (session_end.go), and keeps the session live while the request
// runs.
func (s *sessions) guard(g *Gateway, next http.Handler) http.Handler {
	s.follow(g)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(mcpserver.HeaderKeySessionID)
		if id == "" {
			next.ServeHTTP(w, r)
			return
		}
		name := s.name(r.Context())
		ok, kept := s.check(id, name)
		if !ok {
			g.metrics.deny(reasonSession)
			g.log.Info("refused request: session id not issued to this caller", "reason", reasonSession, "remote", r.RemoteAddr, "principal", name)
			writeRPCError(w, http.StatusNotFound, refusalID(r), codeSession, fmt.Sprintf(
				"session not found: the Mcp-Session-Id was not issued to principal %q by this farm's gateways (or its token changed since, or a gateway of another Corral version issued it); send initialize without Mcp-Session-Id to open a new session", name))
			return
		}
		if !kept && s.endedInFarm(r.Context(), id) || !s.enter(id, name) {
			refuseEnded(g, w, r, name)
			return
		}
		defer s.leave(id)
		if r.Method == http.MethodGet {
			var done func()
			r, done = s.endable(w, r, id)
			defer done()
		}
		next.ServeHTTP(w, r)
	})
}

// ResolveSessionIdManager gives mcp-go, per request, ids bound to the request's principal.
// mcp-go passes nil from its sweeper and shutdown, which only terminate, as does the gateway's
// own DELETE when it forgets a session (endSession).
func (s *sessions) ResolveSessionIdManager(r *http.Request) mcpserver.SessionIdManager {
	ids := boundIDs{s: s}
	if r != nil && r.Context().Value(forgettingKey{}) == nil {
		ids.ctx, ids.principal, ids.bound = r.Context(), s.name(r.Context()), true
	}
	return ids
}

// boundIDs is mcp-go's SessionIdManager for one principal: bound, for a client's request.
type boundIDs struct {
	s         *sessions
	ctx       context.Context // the request's
	principal string
	bound     bool
}

var errSessionNotFound = errors.New("session not found for this caller")

func (b boundIDs) Generate() string {
	id := b.s.mint(b.principal)
	b.s.open(id, b.principal)
	b.s.minted(id)
	return id
}

func (b boundIDs) Validate(id string) (bool, error) {
	if !b.bound || !b.s.verify(id, b.principal) {
		return false, errSessionNotFound
	}
	return false, nil
}

// Terminate ends a session a client's DELETE names, for good and on every gateway
// (session_end.go); one this gateway forgets, it only forgets.
func (b boundIDs) Terminate(id string) (bool, error) {
	if !b.bound {
		b.s.forget(id)
		return false, nil
	}
	if !b.s.verify(id, b.principal) {
		return false, errSessionNotFound
	}
	return false, b.s.endForGood(b.ctx, id)
}

// forgettingKey marks the context of the gateway's own DELETEs (endSession): they forget a
// session, where a client's ends it.
type forgettingKey struct{}

// endSession frees mcp-go's state of a session through its own DELETE path, as if the client
// had ended it: the transport's maps and the server's session registry.
func endSession(h http.Handler, id string) {
	ctx := context.WithValue(context.Background(), forgettingKey{}, true)
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, "/mcp", http.NoBody)
	if err != nil {
		return
	}
	req.Header.Set(mcpserver.HeaderKeySessionID, id)
	h.ServeHTTP(&discardResponse{header: http.Header{}}, req)
}

// discardResponse is a ResponseWriter that keeps nothing.
type discardResponse struct{ header http.Header }

func (d *discardResponse) Header() http.Header         { return d.header }
func (d *discardResponse) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardResponse) WriteHeader(int)             {}
