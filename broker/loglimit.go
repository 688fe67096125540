package broker

import (
	"sync"
	"time"
)

// logEvery is how often a repeating failure (a full sessions' bucket refusing every write)
// is logged at most.
const logEvery = time.Minute

// logLimit lets one line of a kind through per logEvery and counts the others, which the next
// line reports: a failure repeated on every tool call must not flood the log (as
// mcp's denial log does for the session writes).
type logLimit struct {
	now func() time.Time

	mu     sync.Mutex
	logged time.Time // when the last line went out; zero before the first
	quiet  int       // occurrences since, not logged
}

func newLogLimit() *logLimit { return &logLimit{now: time.Now} }

// allow says whether this occurrence is logged, and if so how many were not since the last
// line; otherwise it counts it for the next line.
func (l *logLimit) allow() (ok bool, unlogged int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.logged.IsZero() && now.Sub(l.logged) < logEvery {
		l.quiet++
		return false, 0
	}
	l.logged, unlogged, l.quiet = now, l.quiet, 0
	return true, unlogged
}
