package broker

import (
	"log/slog"
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
// probeAfter. A process with no node alive hears nothing either way, so it asks once its
// server's last answer is probeAfter old: its readiness and the stalled-connection drop
// (liveness_stall.go) hold with no node too, for one round trip every probeAfter. A hub's
// site watch asks the same before it counts a site's silence (sites.go).

// probeWait bounds the round trip: a heartbeat interval, as caughtUp waits.
const probeWait = HeartbeatInterval

// ownServer is the question a silence of others asks first: does this process's own NATS
// server answer it? It remembers since when it has not, and logs the start and the end of
// such a time once each.
type ownServer struct {
	// holds says, in the log, what waits while the server does not answer; resumes what
	// follows its answer.
	holds, resumes string
	// unansweredSince is when it last went unanswered (zero: it answered).
	unansweredSince time.Time
	// confirm is what a gateway asks before it drops a connection not answered
	// (liveness_stall.go).
	confirm stallConfirm
}

// answers asks the server for a round trip (roundTrip, within probeWait) at now. answered
// false: no answer, the silence is this process's own. back, when it answered after a time
// it did not, is when that answer came: silences until then were this process's own too.
func (s *ownServer) answers(roundTrip func(within time.Duration) error, log *slog.Logger, now time.Time) (answered bool, back time.Time) {
	start := time.Now()
	if err := roundTrip(probeWait); err != nil {
		if s.unansweredSince.IsZero() {
			s.unansweredSince = now
			log.Warn("the NATS server does not answer this process though its connection is up (a stopped or hung "+
				"server, or a stalled link): "+s.holds, "waited", probeWait, "err", err)
		}
		return false, time.Time{}
	}
	return true, s.heard(log, now.Add(time.Since(start)))
}

// heard notes an answer through the server that came at came (a round trip's, or any other
// that needed it): came if it ended a time without one, zero otherwise.
func (s *ownServer) heard(log *slog.Logger, came time.Time) time.Time {
	if s.unansweredSince.IsZero() {
		return time.Time{}
	}
	log.Info("the NATS server answers this process again; "+s.resumes, "unanswered_for", came.Sub(s.unansweredSince).Round(time.Millisecond))
	s.unansweredSince = time.Time{}
	return came
}

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
	if l.probe == nil || l.server.unansweredSince.IsZero() && l.quiet(now) <= l.probeAfter() {
		return true
	}
	answered, back := l.server.answers(l.probe, l.log, now)
	if answered {
		l.answeredAt = now
	}
	if !back.IsZero() {
		l.restartClocks(back)
	}
	l.noteServer(now)
	return answered
}

// quiet is how long this process has had no sign that its server answers at now: the
// longest silence of a node not lost, or with none, the age of the server's last answer.
func (l *Liveness) quiet(now time.Time) time.Duration {
	if longest, some := l.silenceOfAny(now); some {
		return longest
	}
	return now.Sub(l.answeredAt)
}

// probeOf is Liveness.probe for nc: a PING answered by a PONG.
func probeOf(nc *nats.Conn) func(time.Duration) error { return nc.FlushTimeout }
