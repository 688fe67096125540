package broker

import (
	"time"

	"github.com/nats-io/nats.go"
)

// A server that hangs (its process stopped, its disk stuck) or a connection that stalls keeps
// the TCP connection: nats.go shows it up and pings only every two minutes. No heartbeat
// reaches this process then, as in a disconnection, and the same rule holds: the silence is
// this process's own, not the nodes'. So once some node has been silent for probeAfter, each
// check asks the server for a round trip first (one a check, whatever the number of nodes);
// one not answered within probeWait is a link down, and once one is again every node gets
// lostAfter from then to beat. A healthy farm is not asked: its nodes beat well within
// probeAfter.

// probeWait bounds the round trip: a heartbeat interval, as caughtUp waits.
const probeWait = HeartbeatInterval

// probeAfter is how long a node is silent before the checks ask the server. The first round
// trip into a stall goes out at most probeAfter and a check after it began; a stall over
// before that round trip timed out is not seen, and the beats it held come at most a
// heartbeat interval, probeAfter, a check and probeWait after the last one (2.1 s): before
// lostAfter.
func (l *Liveness) probeAfter() time.Duration { return min(l.lostAfter/2, 2*HeartbeatInterval) }

// answering says whether the server answers this process at now, asking it when a node has
// been silent for probeAfter or it did not answer the last time. The first answer after a
// silence restarts every node's clock at when it came.
func (l *Liveness) answering(now time.Time) bool {
	if l.probe == nil || l.unansweredSince.IsZero() && l.silence(now) <= l.probeAfter() {
		return true
	}
	start := time.Now()
	err := l.probe(probeWait)
	back := now.Add(time.Since(start))
	if err != nil {
		if l.unansweredSince.IsZero() {
			l.unansweredSince = now
			l.log.Warn("the NATS server does not answer this process though its connection is up (a stopped or hung "+
				"server, or a stalled link): no node's silence counts until it answers (docs/operations.md, Node lost)", "waited", probeWait, "err", err)
		}
		return false
	}
	if !l.unansweredSince.IsZero() {
		l.log.Info("the NATS server answers this process again; every node gets its full time to beat",
			"unanswered_for", back.Sub(l.unansweredSince).Round(time.Millisecond), "lost_after", l.lostAfter)
		l.unansweredSince = time.Time{}
		l.restartClocks(back)
	}
	return true
}

// probeOf is Liveness.probe for nc: a PING answered by a PONG.
func probeOf(nc *nats.Conn) func(time.Duration) error { return nc.FlushTimeout }
