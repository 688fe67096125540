// Package console is the device wall: the web console the gateway serves at / beside /mcp, on
// the same listener, behind the same Host/Origin checks and with the same tokens. It shows
// every device the viewer may use (the policy's tag rule) with its platform, node, state,
// holder, lease expiry, queue and a live screen; a device page with a larger screen and the
// device's task timeline from the event stream; and, for viewers allowed them, actions on the
// device (actions.go): acquire and release, tap and swipe on the live screen, type, home, back,
// abort, stop (an arm rig's emergency_stop), and for operators force release, each carried out by the front door's own tool
// handlers (Actions), behind a per-session CSRF token (csrf.go).
//
// Pages are html/template, styled by one embedded CSS file and driven by a little hand-written
// JS (no build step): the grid long-polls a JSON view of the registry (answered as soon as it
// changes), and live screens arrive as Server-Sent Events carrying JPEG frames, one stream per
// page for all its screens (a browser opens at most six connections to a host). Frames come
// from the nodes through NATS (broker/frames.go) only while someone watches, one capture shared
// by every watcher (hub.go).
//
// A browser cannot put a bearer token on an <img> or an EventSource, so the console takes the
// token once (a login form, or ?token= on any page) and keeps a login in an HttpOnly,
// SameSite=Strict cookie: a MAC'd name and expiry, never the token (login_cookie.go); requests
// may also carry the bearer header, as /mcp's do (viewer.go). Actions take the
// cookie only: they are for the console's own pages, and scripts have /mcp.
package console

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/corral-farm/corral/broker"
)

// Farm is what the console reads of the farm; broker.Client implements it.
type Farm interface {
	Devices() []broker.DeviceEntry
	Device(serial string) (broker.DeviceEntry, bool)
	Leases(ctx context.Context) ([]broker.Lease, error)
}

// History reads task records (broker.Client.TaskHistory); without it there is no timeline.
type History interface {
	TaskHistory(ctx context.Context, q broker.HistoryQuery) (broker.History, error)
}

// Registry tells when the farm's registry changed (broker.Client.RegistryVersion): a grid's
// long poll then builds the grid again only when it did, or the leases did. Without it a long
// poll builds the grid at every look: 10,000 devices cost most of a core a page.
type Registry interface{ RegistryVersion() uint64 }

// Screens reaches the nodes' live screens (broker.Client); without it there are no frames.
type Screens interface {
	Watch(ctx context.Context, req broker.WatchRequest) (broker.WatchAnswer, error)
	SubscribeFrames(serial string, fn func(broker.Frame)) (node string, stop func(), err error)
}

// Viewer is who looks at the console.
type Viewer struct {
	Name string
	// Tags are the device tags the viewer is limited to (shown); MayUse decides (nil: every
	// device).
	Tags   []string
	MayUse func(tags []string) bool
	// MayAct: the viewer may change devices (a tool not marked read-only: an operator's force
	// release needs abort_task, one of them); everyone else gets a read-only badge. Each action shows only if its own tool
	// is allowed (MayCall).
	MayAct bool
	// MayCall says which of the front door's tools the viewer may call (nil: every tool): the
	// device page shows the actions whose tools it may call. The front door decides again.
	MayCall func(tool string) bool
	// Operator may force the release of a lease whoever holds it, if MayCall allows abort_task
	// (it aborts the running task).
	Operator bool
	// Principal is the front door's own record of the viewer, handed back to Actions.
	Principal any
	// Credential ties the viewer to its token as the policy holds it now (the token's SHA-256,
	// never the token): a login cookie binds it, so that a token changed or removed ends the
	// login. Secret: never shown.
	Credential []byte
	// Key is the viewer's own secret, the same on every gateway of the farm and derived from
	// the farm's gateway secret and its token (not from what the policy file holds alone): it keys the viewer's login cookie, CSRF tokens and sealed lease cookies,
	// so that a change to another principal of the policy leaves them valid. Nil: Config.Key.
	// Secret: never shown.
	Key []byte
	// OtherKey is a key the viewer's cookies and CSRF tokens are also taken under, never issued
	// under: the other of a rolling upgrade's two (mcp/session_keys.go), so that what a gateway
	// of the other Corral version set keeps working. Nil: none (Config.OtherKey without a Key).
	// Secret: never shown.
	OtherKey []byte

	// served says which tools the gateway serves (Actions.Serves; nil: every tool): a view
	// needs its tool served as well as allowed (reads.go). The console sets it (withViewer).
	served func(tool string) bool
}

// Anonymous is every viewer of a console without authentication (a gateway without a policy,
// on loopback): it may do everything, as on /mcp, force release included.
var Anonymous = Viewer{Name: "anonymous", MayAct: true, Operator: true}

func (v Viewer) mayUse(d broker.DeviceEntry) bool { return v.MayUse == nil || v.MayUse(d.Tags) }

// mayCall reports whether v may call tool on this gateway: its token may, and the gateway
// serves it.
func (v Viewer) mayCall(tool string) bool {
	return v.serves(tool) && (v.MayCall == nil || v.MayCall(tool))
}

func (v Viewer) serves(tool string) bool { return v.served == nil || v.served(tool) }

// Can reports whether v may call tool on this gateway (templates ask it).
func (v Viewer) Can(tool string) bool { return v.mayCall(tool) }

// Actions carries out the console's actions through the front door (mcp/console.go): the tool
// handlers an MCP tools/call reaches, with their policy checks, lease fencing, task records and
// metrics, so that the console decides nothing an agent could not.
type Actions interface {
	// Serves reports whether the front door serves tool (a gateway may serve a profile only).
	Serves(tool string) bool
	// Supports reports whether devices of platform can run tool, as far as the gateway knows
	// the platform's drivers (their abilities and gaps: an iPhone has no Back); true for a
	// platform it does not know.
	Supports(platform, tool string) bool
	// Call calls tool with args for the viewer.
	Call(ctx context.Context, v Viewer, tool string, args map[string]any) Answer
	// ForceRelease revokes the lease of serial, whoever holds it: operators only.
	ForceRelease(ctx context.Context, v Viewer, serial string) Answer
}

// Answer is what an action came to.
type Answer struct {
	OK bool
	// Denied: the policy refused it (the viewer may not do this); nothing ran.
	Denied bool
	// Busy: refused because someone else holds the device or runs a task on it (its Message
	// then advises an MCP client; the console says what a person can do).
	Busy bool
	// Message is the tool's text: what happened, or what was wrong and what to do.
	Message string
	// Data is the tool's structured result.
	Data json.RawMessage

	lease *leaseTimes // the console's own, after an acquire
}

// ClientName names the console as the MCP client of its calls: a lease it takes shows as held
// by "alice (console)".
const ClientName = "console"

// Refusal reasons, as the gateway counts them (corral_gateway_denied_total).
const (
	ReasonNoToken  = "no_token"
	ReasonBadToken = "bad_token"
)

// Config configures a Console.
type Config struct {
	Farm    Farm
	History History // nil: no timeline
	Screens Screens // nil: no live screens
	// Registry: nil, the Farm's if it has one (a long poll builds the grid at every look
	// without).
	Registry Registry
	// Authenticate returns the viewer a token names, false for none. Nil: no authentication;
	// everyone is Anonymous (a gateway without a policy, on loopback).
	Authenticate func(token string) (Viewer, bool)
	// Named returns the viewer a principal's name names now, with its Credential, false for
	// none: the login cookie holds the name, not the token. Needed with Authenticate.
	Named func(name string) (Viewer, bool)
	// Key is a secret every gateway of the farm shares: it keys what belongs to no viewer's
	// own Key (the login form's CSRF token, before a login; every cookie of a viewer without a
	// Key, such as Anonymous), so that any gateway takes what another set. Nil: a random key,
	// good for this console only.
	Key []byte
	// OtherKey is to Key what Viewer.OtherKey is to Viewer.Key: also taken, never issued.
	OtherKey []byte
	// Denied counts and logs a request refused for want of a viewer, by reason
	// (ReasonNoToken, ReasonBadToken); nil: the console logs it itself.
	Denied func(r *http.Request, reason string)
	// Actions carries out actions; nil: the console is read-only for everyone. What its Serves
	// leaves out (a gateway's --tools), the console shows no one, as a token's tools do.
	Actions Actions
	Metrics *Metrics // may be nil
	Log     *slog.Logger
	// Watcher names this gateway in its watch requests (random when empty).
	Watcher string
}

// Console serves the device wall.
type Console struct {
	cfg     Config
	keys    consoleKeys
	now     func() time.Time
	log     *slog.Logger
	mux     *http.ServeMux
	pages   *pages
	leases  *cached[map[string]broker.Lease]
	history *historyCache
	hub     *hub
	// longPoll bounds a long poll of the grid (the const; shorter in tests).
	longPoll time.Duration
}

// New returns a console over cfg.Farm.
func New(cfg Config) *Console {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if r, ok := cfg.Farm.(Registry); ok && cfg.Registry == nil {
		cfg.Registry = r
	}
	if cfg.Watcher == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		cfg.Watcher = "gw_" + hex.EncodeToString(b)
	}
	c := &Console{cfg: cfg, keys: deriveKeys(cfg.Key), now: time.Now, log: cfg.Log, mux: http.NewServeMux(), pages: mustPages(),
		leases: newCached(time.Second, func(ctx context.Context) (map[string]broker.Lease, error) {
			return leaseMap(ctx, cfg.Farm)
		}).comparing(sameLeaseViews),
		history:  newHistoryCache(cfg.History),
		longPoll: longPoll,
	}
	if cfg.Screens != nil {
		c.hub = newHub(cfg.Screens, cfg.Farm, cfg.Watcher, cfg.Metrics, cfg.Log)
	}
	c.routes()
	return c
}

// routes registers the console's paths. Pages and their data need a viewer; the login form
// and the static files do not.
func (c *Console) routes() {
	c.mux.HandleFunc("GET /{$}", c.page(c.gridPage))
	c.mux.HandleFunc("GET /devices/{serial}", c.page(c.devicePage))
	c.mux.HandleFunc("GET /console/api/devices", c.api(c.devicesJSON))
	c.mux.HandleFunc("GET /console/api/devices/{serial}", c.api(c.deviceJSON))
	c.mux.HandleFunc("GET /console/devices/{serial}/timeline", c.api(c.timelineFragment))
	c.mux.HandleFunc("GET /console/frames", c.api(c.frames))
	c.mux.HandleFunc("POST /console/devices/{serial}/actions/{action}", c.act)
	c.mux.HandleFunc("POST /console/login", c.login)
	c.mux.HandleFunc("POST /console/logout", c.logout)
	c.mux.Handle("GET /console/static/", http.StripPrefix("/console/static/", staticFiles()))
}

// ServeHTTP serves the console with its security headers: no framing, no sniffing, no
// referrer to other sites (a URL may carry ?token= once; same-origin keeps the form posts'
// Origin header, which "no-referrer" turns into "null" and the gateway's Origin check then
// refuses), scripts and styles from the console only.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	c.mux.ServeHTTP(w, r)
}
