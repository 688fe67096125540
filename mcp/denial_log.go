package mcp

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Bounds of the denial log: a client repeating a refused call must not flood the log.
const (
	denialWindow  = time.Minute // one line per principal, tool, device and reason in this long
	maxDenialKeys = 4096        // denials remembered; beyond, new ones are counted, not logged
)

// denial is one refused call as the log shows it: never the token or a lease handle.
type denial struct {
	reason string // of corral_gateway_denied_total
	tool   string // the tool refused; "" for the call's own
	serial string // the device, if any
	rule   string // the rule that refused it
}

// denialKey is what makes two denials the same for the log.
type denialKey struct{ reason, principal, tool, serial string }

type denialSeen struct {
	logged  time.Time
	repeats int // the same denial since, not logged
}

// denialLog logs each denial by the policy once: the first at once, its repeats within
// denialWindow counted and reported (repeats=N) on the line of the next one after it. The
// metric corral_gateway_denied_total counts them all.
type denialLog struct {
	log *slog.Logger
	now func() time.Time

	mu       sync.Mutex
	seen     map[denialKey]*denialSeen
	unlogged int // denials not logged because seen was full, reported on the next line
}

func newDenialLog(log *slog.Logger) *denialLog {
	return &denialLog{log: log, now: time.Now, seen: map[denialKey]*denialSeen{}}
}

// record logs d of principal (or counts it, if the same was logged within the window).
func (l *denialLog) record(ctx context.Context, principal string, d denial) {
	attrs := []any{"reason", d.reason, "principal", principal, "tool", d.tool}
	if d.serial != "" {
		attrs = append(attrs, "serial", d.serial)
	}
	attrs = append(attrs, "rule", d.rule, "remote", remoteFrom(ctx))
	l.once(denialKey{d.reason, principal, d.tool, d.serial}, slog.LevelInfo, "refused call by policy", attrs)
}

// request logs an HTTP request refused before it reached a tool (no valid token, a foreign
// host or origin, a body too large or too slow), or counts it if one from the same host was
// logged for the same reason within the window: a client retrying, or a scanner, must not
// flood the log either.
func (l *denialLog) request(r *http.Request, reason, msg string, attrs ...any) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	l.once(denialKey{reason: reason, serial: host}, slog.LevelInfo, msg,
		append([]any{"reason", reason, "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path}, attrs...))
}

// once logs msg with attrs at level unless the same key was logged within denialWindow, whose
// repeats it then counts for the next line.
func (l *denialLog) once(key denialKey, level slog.Level, msg string, attrs []any) {
	l.mu.Lock()
	now := l.now()
	s := l.seen[key]
	if s != nil && now.Sub(s.logged) < denialWindow {
		s.repeats++
		l.mu.Unlock()
		return
	}
	repeats := 0
	if s != nil {
		repeats = s.repeats
	} else if !l.room(now) {
		l.unlogged++
		l.mu.Unlock()
		return
	}
	l.seen[key] = &denialSeen{logged: now}
	unlogged := l.unlogged
	l.unlogged = 0
	l.mu.Unlock()

	if repeats > 0 {
		attrs = append(attrs, "repeats", repeats)
	}
	if unlogged > 0 {
		attrs = append(attrs, "unlogged_others", unlogged)
	}
	l.log.Log(context.Background(), level, msg, attrs...)
}

// room makes room for one more denial, forgetting those whose window has passed; it reports
// whether there is. Repeats of a forgotten one are counted as unlogged.
func (l *denialLog) room(now time.Time) bool {
	if len(l.seen) < maxDenialKeys {
		return true
	}
	for k, s := range l.seen {
		if now.Sub(s.logged) >= denialWindow {
			l.unlogged += s.repeats
			delete(l.seen, k)
		}
	}
	return len(l.seen) < maxDenialKeys
}

// remoteKey carries the client's address of an HTTP request to the tool handlers.
type remoteKey struct{}

// withRemote puts each request's remote address in its context, for the denial log: the
// console's requests (/mcp's carry it with their body, one context layer for both).
func withRemote(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), remoteKey{}, r.RemoteAddr)))
	})
}

// remoteFrom is the client's address, or "local" for a call that came in another way (stdio,
// an in-process client).
func remoteFrom(ctx context.Context) string {
	if b, ok := ctx.Value(bodyKey{}).(*buffered); ok && b.remote != "" {
		return b.remote
	}
	if r, ok := ctx.Value(remoteKey{}).(string); ok && r != "" {
		return r
	}
	return "local"
}

// logDenial logs a denial by the policy (not the rate limits' refusals, which are flow
// control and only counted) with the caller and its address.
func (g *Gateway) logDenial(ctx context.Context, d denial) {
	if d.reason == reasonRate || d.reason == reasonQueue {
		return
	}
	if d.tool == "" {
		d.tool = toolFrom(ctx)
	}
	principal := ""
	if p := g.principal(ctx); p != nil {
		principal = p.Name
	}
	g.denials.record(ctx, principal, d)
}

// refusedRequest counts an HTTP request refused before it reached a tool, and logs it
// (denialLog.request).
func (g *Gateway) refusedRequest(r *http.Request, reason, msg string, attrs ...any) {
	g.metrics.deny(reason)
	g.denials.request(r, reason, msg, attrs...)
}

// refusedUnauthenticated is refusedRequest of a request of /mcp or the console without a
// valid token.
func (g *Gateway) refusedUnauthenticated(r *http.Request, reason string) {
	g.refusedRequest(r, reason, "refused unauthenticated request")
}
