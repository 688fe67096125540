package broker

import (
	"fmt"
	"log/slog"
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
//
// The checks' round trips wait probeWait only, so on a link slower than that (the slow-link
// rule gives a round trip 2 s, docs/operations.md) every one of them fails while some node is
// silent, and dropping the connection then would lose the answers in flight for nothing. So
// while the server does not answer them, one round trip at a time is given reconnectAfter
// (stallConfirm): the connection is dropped only when that one does not come back either.
func (l *Liveness) noteServer(now time.Time) {
	since, c := l.server.unansweredSince, &l.server.confirm
	if since.IsZero() {
		l.unansweredSince.Store(0)
		*c = stallConfirm{}
		return
	}
	if l.reconnect == nil {
		l.unansweredSince.Store(since.UnixNano())
		return
	}
	c.ask(l.probe)
	if done, err := c.answer(); done && err == nil {
		c.noteSlow(l.log)
	} else if done {
		c.slow = false
		if now.Sub(l.reconnectedAt) >= reconnectAfter {
			l.reconnectedAt = now
			l.log.Warn("reconnecting to NATS: the server has not answered this process for "+time.Since(since).Round(100*time.Millisecond).String()+
				"; a new connection is up as soon as the link works again", "unanswered_since", since.Format(time.RFC3339Nano))
			if err := l.reconnect(); err != nil {
				l.log.Warn("could not drop the connection to NATS", "err", err)
			}
		}
	}
	if c.slow {
		l.unansweredSince.Store(0) // it answers, slowly: ready
	} else {
		l.unansweredSince.Store(since.UnixNano())
	}
}

// stallConfirm is one round trip at a time given reconnectAfter to come back, while the
// server does not answer the checks' shorter ones. Read by Run only.
type stallConfirm struct {
	pending chan error // the round trip under way (nil: none)
	started time.Time
	took    time.Duration // the last one that came back
	// slow: one came back, and none has failed since: the link is slow, not stalled.
	slow bool
}

// ask starts a round trip unless one is under way; it ends within reconnectAfter.
func (c *stallConfirm) ask(roundTrip func(within time.Duration) error) {
	if c.pending != nil {
		return
	}
	c.pending, c.started = make(chan error, 1), time.Now()
	go func(done chan<- error) { done <- roundTrip(reconnectAfter) }(c.pending)
}

// answer is the round trip's outcome once it has one (done).
func (c *stallConfirm) answer() (done bool, err error) {
	select {
	case err = <-c.pending:
		if err == nil {
			c.took = time.Since(c.started)
		}
		c.pending = nil
		return true, err
	default:
		return false, nil
	}
}

// noteSlow keeps the connection, saying so once a slow time.
func (c *stallConfirm) noteSlow(log *slog.Logger) {
	if c.slow {
		return
	}
	c.slow = true
	log.Warn("the NATS server answers this process, slowly: a round trip took "+c.took.Round(time.Millisecond).String()+
		", over the "+probeWait.String()+" the node-silence checks wait; the connection is kept (a slow link, not a stalled one). "+
		"Until a round trip comes back within "+probeWait.String()+" no node's silence counts: check this gateway's link to NATS",
		"round_trip", c.took.Round(time.Millisecond))
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
