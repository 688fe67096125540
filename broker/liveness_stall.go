package broker

import (
	"fmt"
	"time"
)

// A connection that stalls (a link cut without a reset, a hung server) is still "connected"
// for nats.go, and once the link heals TCP may take its retransmission backoff (10 s and
// more) to send again: calls hang meanwhile. So while the server does not answer this
// process (liveness_probe.go) its readiness says so, and once it has not answered for
// reconnectAfter the connection is dropped and made again (connect_drop.go): a new TCP connection is up as soon
// as the link is, and until then the process shows as reconnecting.

// reconnectAfter is how long the server goes unanswered before a new connection is made: the
// slow-link rule's round trip (2 s, docs/operations.md) is answered well within it.
const reconnectAfter = 2 * time.Second

// noteServer publishes the server's state for Ready and makes a new connection when it has
// not answered for reconnectAfter, once every reconnectAfter at most. Read by Run only.
func (l *Liveness) noteServer(now time.Time) {
	since := l.server.unansweredSince
	if since.IsZero() {
		l.unansweredSince.Store(0)
		return
	}
	l.unansweredSince.Store(since.UnixNano())
	if l.reconnect == nil || now.Sub(since) < reconnectAfter || now.Sub(l.reconnectedAt) < reconnectAfter {
		return
	}
	l.reconnectedAt = now
	l.log.Warn("reconnecting to NATS: the server has not answered this process for "+now.Sub(since).Round(100*time.Millisecond).String()+
		"; a new connection is up as soon as the link works again", "unanswered_since", since.Format(time.RFC3339Nano))
	if err := l.reconnect(); err != nil {
		l.log.Warn("could not drop the connection to NATS", "err", err)
	}
}

// unanswered says how long the server has not answered this process at now (false: it
// answers, or was not asked).
func (l *Liveness) unanswered(now time.Time) (time.Duration, bool) {
	since := l.unansweredSince.Load()
	if since == 0 {
		return 0, false
	}
	return now.Sub(time.Unix(0, since)), true
}

// serverNotAnswering is Ready's reason while the server does not answer.
func serverNotAnswering(d time.Duration) error {
	return fmt.Errorf("the NATS server does not answer (stalled for %s)", d.Round(100*time.Millisecond))
}
