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
// or a hub's of a site, which one line of Corral's says instead: leafrefused.go,
// leafrefused_hub.go). The server is given it with debug
// and trace off, so it never sees protocol traces (a client's CONNECT carries its password).
// It remembers the last error for a start that fails, and a fatal ends that start at once.
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
	leafRefusals refusals             // a site's, since leafHint was last said
	hubRefusals  map[string]*refusals // a hub's, by leaf user

	fatalOnce sync.Once
	fatal     chan struct{} // closed at the server's first fatal

	writeFailed atomic.Bool // a store failed a write: it takes none until JetStream restarts (revive.go)
	rebuilt     atomic.Bool // a store's state was rebuilt after an unclean stop: said once
}

func newServerLog(log *slog.Logger) *serverLog {
	return &serverLog{log: log.With("component", "nats"), fatal: make(chan struct{}), now: time.Now, hubRefusals: map[string]*refusals{}}
}

func (l *serverLog) Noticef(format string, v ...any) { l.log.Debug(fmt.Sprintf(format, v...)) }

func (l *serverLog) Warnf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	switch {
	case chosenSetting(msg), sourceStateScan(msg):
		l.log.Debug(msg)
	case rebuildAfterUncleanStop(msg):
		l.log.Debug(msg)
		if !l.rebuilt.Swap(true) {
			l.log.Info("rebuilding the stores' indexes after an unclean stop (kill -9, a crash): their messages are read "+
				"back from their blocks; only writes of the stop's last moments may be missing", "first", msg)
		}
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

// rebuildAfterUncleanStop says whether a warning is a store finding, at start, that its index
// was not written at the last stop: after every kill -9, two per stream, of which an operator
// can do nothing (the server reads the messages back from the blocks). One INFO line says it.
func rebuildAfterUncleanStop(warning string) bool {
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
	if l.hubLeafUsers != nil {
		if user, from, ok := hubLeafRefused(msg); ok {
			l.log.Debug(msg)
			l.sayHubLeafRefused(user, from)
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
