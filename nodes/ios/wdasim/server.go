package wdasim

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// maxBody bounds a request body; the largest real one, a long W3C action chain, is a few KiB.
const maxBody = 1 << 20

// Server is WebDriverAgent over one simulated phone. It is safe for concurrent use.
type Server struct {
	phone  *sim.Phone
	scale  int
	routes []route

	requests atomic.Int64
	fault    atomic.Int32
	size     atomic.Pointer[device.Size] // the phone's, fetched once: it never changes

	// turn makes commands run one at a time, as WebDriverAgent runs them on XCTest's main
	// queue: a request waits behind a gesture still going, even one whose client went away.
	turn sync.Mutex

	mu        sync.Mutex
	sid       string            // the active session; "" when there is none
	screenOff bool              // /wda/lock darkened the screen
	launched  map[string]launch // how WebDriverAgent last launched each app

	catalog Catalog // which apps are installed; nil: the phone's own list
}

// launch is how an app was launched, for /wda/activeAppInfo.
type launch struct {
	args []string
	env  map[string]string
}

// New returns WebDriverAgent over phone, whose pixels are points times scale (1 to 4; others are
// clamped). The server has no session yet.
func New(phone *sim.Phone, scale int, opts ...Option) *Server {
	s := &Server{phone: phone, scale: min(max(scale, 1), 4), launched: map[string]launch{}}
	for _, o := range opts {
		o(s)
	}
	s.routes = s.table()
	return s
}

// Option configures a Server.
type Option func(*Server)

// Catalog keeps which apps a phone has installed, when something else than the phone keeps
// them: a simulated iPhone's installation_proxy (iossim.Device).
type Catalog interface {
	InstalledApps() []string
}

// WithCatalog makes c the one account of the installed apps: WebDriverAgent launches,
// terminates and reports the state of those it lists, and of no others, so that it agrees
// with installation_proxy.
func WithCatalog(c Catalog) Option { return func(s *Server) { s.catalog = c } }

// Requests returns how many requests the server has received.
func (s *Server) Requests() int64 { return s.requests.Load() }

// ServeHTTP answers one WebDriverAgent request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if s.misbehave(w, r) {
		return
	}
	defer func() {
		// An exception in WebDriverAgent is a 500, not a dropped connection.
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.reply(w, errUnknown("the simulated phone failed: "+clipText(anyString(v))))
		}
	}()
	if r.Method == http.MethodGet && r.URL.Path == "/health" {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "I-AM-ALIVE")
		return
	}
	sid, path, scoped := splitPath(r.URL.Path)
	rt := s.find(r.Method, path, scoped)
	if rt == nil {
		s.reply(w, errUnknownCommand(r.Method, r.URL.Path))
		return
	}
	if scoped && !s.isActive(sid) {
		s.reply(w, errInvalidSession(sid))
		return
	}
	c := &call{ctx: r.Context(), r: r, sid: sid}
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			s.reply(w, errInvalidArgument("the request body could not be read: "+err.Error()))
			return
		}
		c.body = body
	}
	v, err := s.run(rt, c)
	if err != nil {
		s.reply(w, err)
		return
	}
	s.reply(w, v)
}

// run handles c in its turn; a handler's panic (answered as a 500 above) gives the turn up.
func (s *Server) run(rt *route, c *call) (any, error) {
	s.turn.Lock()
	defer s.turn.Unlock()
	return rt.handle(c)
}

// splitPath splits /session/SID/rest into SID and /rest. POST /session itself is not scoped.
func splitPath(p string) (sid, rest string, scoped bool) {
	tail, ok := strings.CutPrefix(p, "/session/")
	if !ok {
		return "", p, false
	}
	sid, rest, _ = strings.Cut(tail, "/")
	if rest != "" {
		rest = "/" + rest
	}
	return sid, rest, true
}

func (s *Server) isActive(sid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sid != "" && sid == s.sid
}

// screenSize returns the phone's size in pixels.
func (s *Server) screenSize(ctx context.Context) (device.Size, error) {
	if sz := s.size.Load(); sz != nil {
		return *sz, nil
	}
	sz, err := s.phone.ScreenSize(ctx)
	if err != nil {
		return device.Size{}, err
	}
	s.size.Store(&sz)
	return sz, nil
}

func (s *Server) isScreenOff() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.screenOff
}

func anyString(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "panic"
}
