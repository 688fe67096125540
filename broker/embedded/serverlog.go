package embedded

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// serverLog passes the embedded server's log to Corral's (component=nats): its warnings,
// errors and fatals at their levels, its notices at debug (and a site's refusals by its hub,
// its failed TLS handshakes with it, a hub's refusals of a site, or a site's failed TLS
// handshakes with a hub, which one line of Corral's says instead: leafrefused.go, leaftls.go,
// leafrefused_hub.go, leaftls_hub.go). Those match nats-server's
// words (v2.15, server/client.go), which a new version may change, and the leaf tests then
// fail: a site's "Leafnode Error 'Authorization Violation'" (processErr), its TLS handshake's
// notice and error (leaftls.go), a hub's "ADDR - lid:N - authentication error - User "NAME""
// (ErrAuthentication). The server is given it with debug and trace off, so it never sees
// protocol traces (a client's CONNECT carries its password). It remembers the last error for a
// start that fails, and a fatal ends that start at once.
type serverLog struct {
	log *slog.Logger

	// leafHint, for a site's server, says what to do when its hub refuses it (leafrefused.go).
	leafHint string
	// hubLeafUsers, for a hub's server, are its sites' leaf users: a refused one is said by
	// Corral's log instead of the server's (leafrefused_hub.go).
	hubLeafUsers map[string]bool
	now          func() time.Time

	mu           sync.Mutex
	lastErr      string
	leafRefusals refusals // a site's, since leafHint was last said
	// leafTLSReason is why a site's last TLS handshake with its hub failed on its side, until
	// the attempt's end says it; leafTLSFailures are its failed handshakes (leaftls.go).
	leafTLSReason   string
	leafTLSFailures refusals
	hubRefusals     map[string]*refusals // a hub's, by leaf user
	// hubTLSFailures are a hub's leaf connections' failed TLS handshakes, by remote host
	// (leaftls_hub.go).
	hubTLSFailures map[string]*refusals

	fatalOnce sync.Once
	fatal     chan struct{} // closed at the server's first fatal

	writeFailed atomic.Bool // a store failed a write: it takes none until JetStream restarts (revive.go)
	rebuilt     atomic.Bool // the stores' rebuild was said, since the start or JetStream's last restart
	// revived: JetStream was restarted after its stores' writes failed (revive.go), so what it
	// rebuilds is what the failure left stale, not what an unclean stop did.
	revived atomic.Bool
}

func newServerLog(log *slog.Logger) *serverLog {
	return &serverLog{log: log.With("component", "nats"), fatal: make(chan struct{}), now: time.Now, hubRefusals: map[string]*refusals{},
		hubTLSFailures: map[string]*refusals{}}
}

func (l *serverLog) Noticef(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	l.log.Debug(msg)
	if l.leafHint != "" {
		l.leafTLSFailed(msg)
	}
}

func (l *serverLog) Warnf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	switch {
	case chosenSetting(msg), sourceStateScan(msg):
		l.log.Debug(msg)
	case indexRebuild(msg):
		l.log.Debug(msg)
		l.sayRebuilt(msg)
	default:
		l.log.Warn(msg)
	}
}

// chosenSetting says whether a warning is about a setting Corral chose, given at every start:
// the users' passwords (random, kept in DATA/nats, mode 0600) and MaxPayload (vision's
// requests). An operator can do nothing about either.
func chosenSetting(warning string) bool {
	return strings.HasPrefix(warning, "Plaintext passwords detected") || strings.HasPrefix(warning, "Maximum payloads over")
}

// sourceStateScan says whether a warning is a stream finding how far it took a source from
// its own messages: the source was added back (a hub's gateway re-adds a site's idle source
// as the site's link comes up, broker/sites_sources.go) or its index was not written at the
// last stop. It is how nats-server resumes a source; an operator can do nothing about it.
func sourceStateScan(warning string) bool {
	return strings.Contains(warning, "] Sourcing state is outdated; attempting to recover using ")
}

// indexRebuild says whether a warning is a store finding, as it starts, that its index was not
// written when it last stopped: after every kill -9, and after writes that failed on a full
// disk, two per stream, of which an operator can do nothing (the server reads the messages
// back from the blocks). One INFO line says it (sayRebuilt).
func indexRebuild(warning string) bool {
	return strings.Contains(warning, "] Stream state outdated, ") ||
		strings.Contains(warning, "] Recovering stream state from index errored: prior state file")
}

func (l *serverLog) Errorf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if l.leafHint != "" && leafRefused(msg) {
		l.log.Debug(msg)
		l.sayLeafRefused(l.leafHint)
		return
	}
	if l.leafHint != "" && l.leafTLSFailed(msg) {
		l.log.Debug(msg)
		return
	}
	if l.hubLeafUsers != nil {
		if user, from, ok := hubLeafRefused(msg); ok {
			l.log.Debug(msg)
			l.sayHubLeafRefused(user, from)
			return
		}
		if l.hubLeafTLSFailed(msg) {
			l.log.Debug(msg)
			return
		}
	}
	l.log.Error(msg)
	l.remember(msg)
	if strings.Contains(msg, "critical write error") {
		l.writeFailed.Store(true)
	}
}

// Fatalf logs what stops the server. nats-server's own logger would exit the process here;
// Corral's start says it and stops instead (Start).
func (l *serverLog) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	l.log.Error(msg, "fatal", true)
	l.remember(msg)
	l.fatalOnce.Do(func() { close(l.fatal) })
}

// Debugf and Tracef are never called (debug and trace are off); they log nothing if they are.
func (l *serverLog) Debugf(string, ...any) {}
func (l *serverLog) Tracef(string, ...any) {}

func (l *serverLog) remember(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lastErr = msg
}

// lastError is the last error or fatal the server logged, "" when none.
func (l *serverLog) lastError() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastErr
}

// sayRebuilt says once, at a start or at JetStream's restart after failed writes, that the
// stores' indexes are rebuilt, and why as far as this process knows: at a restart of its own
// (revive.go) its stores' writes failed, most likely as the disk filled; at a start the last
// process's stop was unclean, which a full disk makes as well as kill -9 or a crash.
func (l *serverLog) sayRebuilt(first string) {
	if l.rebuilt.Swap(true) {
		return
	}
	if l.revived.Load() {
		l.log.Info("rebuilding the stores' indexes after their writes failed (most likely the disk filled): their messages are read "+
			"back from their blocks; writes refused while the stores took none are not there", "first", first)
		return
	}
	l.log.Info("rebuilding the stores' indexes after an unclean stop (kill -9, a crash, or writes that failed on a full disk): "+
		"their messages are read back from their blocks; only writes of the stop's last moments may be missing", "first", first)
}

// restartingAfterFailedWrites marks JetStream's restart after its stores' writes failed
// (revive.go): the rebuild that follows is said again, and blamed on them.
func (l *serverLog) restartingAfterFailedWrites() {
	l.revived.Store(true)
	l.rebuilt.Store(false)
}
