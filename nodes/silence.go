package nodes

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
)

// A node whose process stops (kill -STOP, a VM paused) or whose connection to NATS stalls
// sends no heartbeats, and the farm declares it lost: the gateways answer the calls waiting
// on it "node lost", and a caller told so may call again elsewhere. The requests they had sent
// still wait in NATS, and reach the node when it runs again, all at once. Run then, a task is
// done twice, and a lease is granted to someone who has no handle, holding the device until
// its idle expiry. The node cannot tell a request's age from the gateway's clock, but it can
// tell it was silent: it asks its NATS server for a round trip every heartbeat interval, and
// one that comes back long after the one before says the node was silent that long; every
// message the server held for the node through the silence came before it.
//
// Silent long enough for the farm to declare it lost, the node takes what comes in the next
// moment as possibly answered already. A task starts only once its caller says it still
// waits (actors' caller_gone.go), for askFor, and also after the node hears of its loss: the
// question is cheap and exact. So is a lease request granted (lease_after_silence.go); one
// from an older gateway carries nothing its caller could be asked by, so it is refused, but
// only while the held requests come (refuseFor), so that a caller who asks again once the node
// is back is not refused as well. A silence that ended in a new connection held nothing: NATS
// does not keep requests for a connection that is gone. A node that was not silent takes its
// requests as before, with no question on the way.

// Silence timing. A farm declares a node lost broker.LostAfter after the last heartbeat it
// heard, which may have gone a heartbeat interval before the node's last round trip. The
// requests held through a silence are on their way to the node's handlers when the round trip
// that ends it comes back: they are taken in a moment (refuseFor); tasks and lease requests
// are asked about for longer (askFor).
const (
	silentAfter = broker.LostAfter - broker.HeartbeatInterval
	askFor      = broker.LostAfter
	refuseFor   = 2 * broker.HeartbeatInterval
)

// silence knows whether the node may just have been silent long enough to be declared lost.
// Its times are offsets from base on the monotonic clock: a stopped process's clock goes on,
// and a host's wall clock may step.
type silence struct {
	base time.Time
	log  *slog.Logger
	// heard is the last round trip to the NATS server. Tasks and lease requests taken before
	// askUntil are asked about, an older gateway's lease requests taken before refuseUntil refused.
	heard, askUntil, refuseUntil atomic.Int64
	reconnects                   uint64 // the connection's, at the last round trip (watch's own)

	// losses counts the losses the node heard of (heardLost). A grant that follows a question
	// to its caller is handed to the scheduler under lossMu (unlessLostSince), and heardLost
	// counts under it too, before the node sends its revoke: the grant either comes before the
	// revoke, which ends it, or sees the loss and is refused.
	lossMu sync.Mutex
	losses uint64
	// lostAt is when the node last heard of its loss (an offset, as heard). starting holds the
	// tasks whose callers are asked before they run, until they end (silence_start.go), by a
	// number of their own: heardLost ends them as the loss, under lossMu.
	lostAt    int64
	starting  map[uint64]func()
	nextStart uint64
	// verdicts are the gateways' loss verdicts heard lately, by name (broker.EntryVerdict), as
	// offsets when first heard: a copy of one heard already is no loss heard since (heardLost).
	verdicts map[string]int64
	// handedBack, set by tests, runs as a task whose caller said it still waits is handed back
	// to its device's worker to start: the moment between the question and the driver.
	handedBack func()

	// work runs the goroutines of lease requests (questions to callers, grants' deliveries)
	// for no longer than the node lives: watch, which runs as long, stops them as it ends.
	work *tracked
	// leases keeps the lease requests of each device in their order of arrival while some are
	// asked about (silence_line.go).
	leases leaseLine
}

func newSilence(log *slog.Logger) *silence {
	return &silence{base: time.Now(), log: log, work: newTracked(), starting: map[uint64]func(){}, verdicts: map[string]int64{}}
}

// now is the present as an offset from base.
func (s *silence) now() int64 { return int64(time.Since(s.base)) }

// mayHaveBeenLost says whether a task taken now may be one whose caller was told the node was
// lost: the node is silent still (the round trip that would say otherwise has not come back:
// its process has just resumed, or its connection is stalled), or was a moment ago, or has
// just heard of its loss. heard is read first: a round trip recorded meanwhile moved the
// windows first.
func (s *silence) mayHaveBeenLost() bool {
	now := s.now()
	return now-s.heard.Load() >= int64(silentAfter) || now < s.askUntil.Load()
}

// silentNow says whether the node is silent still: its last round trip to NATS is at least
// silentAfter ago (its link does not answer, or its process has just resumed).
func (s *silence) silentNow() bool { return s.now()-s.heard.Load() >= int64(silentAfter) }

// heldThrough says whether a request taken now may have waited in NATS through a silence
// long enough for the farm to declare the node lost: it is silent still, or its silence has
// just ended.
func (s *silence) heldThrough() bool {
	now := s.now()
	return now-s.heard.Load() >= int64(silentAfter) || now < s.refuseUntil.Load()
}

// connected notes that the node has a new connection to NATS (it starts, or reconnected):
// nothing waited for it through the silence before.
func (s *silence) connected() { s.heard.Store(s.now()) }

// watch asks the NATS server for a round trip every heartbeat interval until ctx ends. A round
// trip may take as long as silentAfter: on a slow link (a distant node, a loaded network) the
// node's heartbeats still reach the farm, a moment late, and it is not declared lost, so a
// round trip that is slow but comes back is no silence. One that does not come back by then
// leaves heard where it was, and the node silent until one does; it says so once a silence.
func (s *silence) watch(ctx context.Context, nc *nats.Conn) {
	defer s.work.stop() // the node stops: its questions end, and it waits for them
	s.reconnects = nc.Stats().Reconnects
	t := time.NewTicker(broker.HeartbeatInterval)
	defer t.Stop()
	said := false // that round trips do not come back, this silence
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, silentAfter)
		err := nc.FlushWithContext(rctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil && !said {
				said = true
				s.log.Warn(fmt.Sprintf("a round trip to NATS did not come back within %s (%v): until one does, this node takes what comes as possibly "+
					"answered already (the farm may declare it lost): it asks the callers of its tasks and lease requests whether they still wait. "+
					"Check the node's link to NATS", silentAfter, err), "silent", time.Duration(s.now()-s.heard.Load()).Round(time.Millisecond))
			}
			continue
		}
		said = false
		if r := nc.Stats().Reconnects; r != s.reconnects {
			s.reconnects = r
			s.connected()
			continue
		}
		s.roundTrip(s.now())
	}
}

// roundTrip records a round trip at now: one long after the one before ends a silence.
func (s *silence) roundTrip(now int64) {
	if gap := time.Duration(now - s.heard.Load()); gap >= silentAfter {
		// Before heard: mayHaveBeenLost and heldThrough read them the other way round.
		moveOn(&s.askUntil, now+int64(askFor))
		moveOn(&s.refuseUntil, now+int64(refuseFor))
		s.log.Warn(fmt.Sprintf("this node was silent for %s (its process stopped, or its connection to NATS stalled): long enough for the farm "+
			"to declare it lost and tell its callers so. For %s its tasks start, and its leases are granted, only once their callers say "+
			"they still wait", gap.Round(100*time.Millisecond), askFor), "silent", gap.Round(time.Millisecond))
	}
	s.heard.Store(now)
}

// heardLost notes that the farm declared the node lost: a task taken in the next moment may
// have been answered so, and so may one whose caller was being asked (lossesHeard); one whose
// caller is asked before it runs ends, refused node_lost if its driver has not got it yet
// (silence_start.go). The node calls it for every verdict, a repeated one too, before it
// revokes its leases for the loss. verdict names the gateway's verdict (broker.EntryVerdict,
// "" when it cannot tell): a copy of one it heard already (its entries, then its event) tells
// of no caller told since, and counts for nothing; another gateway's verdict does. It says
// whether the verdict is news: not such a copy.
func (s *silence) heardLost(verdict string) (news bool) {
	s.lossMu.Lock()
	if news = !s.heardBefore(verdict); news {
		s.losses++
		s.lostAt = s.now()
		for _, endLost := range s.starting { // before their drivers get them: a running task is no longer held
			endLost()
		}
	}
	s.lossMu.Unlock()
	moveOn(&s.askUntil, s.now()+int64(askFor))
	return news
}

// verdictsKept is how long a verdict's name is kept: its copies come within moments of each
// other (reapWait bounds each of its writes), and a new loss has a new name.
const verdictsKept = 10 * time.Minute

// heardBefore says whether the node heard verdict already, and notes it heard now; under lossMu.
func (s *silence) heardBefore(verdict string) bool {
	if verdict == "" {
		return false
	}
	now := s.now()
	for v, at := range s.verdicts {
		if now-at > int64(verdictsKept) {
			delete(s.verdicts, v)
		}
	}
	if _, heard := s.verdicts[verdict]; heard {
		return true
	}
	s.verdicts[verdict] = now
	return false
}

// lossesHeard is how many losses the node has heard of: taken before a question to a caller,
// it tells afterwards whether one came meanwhile (lostSince, unlessLostSince).
func (s *silence) lossesHeard() uint64 {
	s.lossMu.Lock()
	defer s.lossMu.Unlock()
	return s.losses
}

// lostSince says whether the node heard of a loss since lossesHeard said seen.
func (s *silence) lostSince(seen uint64) bool { return s.lossesHeard() != seen }

// unlessLostSince runs grant unless the node heard of a loss since lossesHeard said seen, and
// says whether it ran. grant only sends (to the scheduler): the revoke of a loss heard after
// it comes after it.
func (s *silence) unlessLostSince(seen uint64, grant func()) bool {
	s.lossMu.Lock()
	defer s.lossMu.Unlock()
	if s.losses != seen {
		return false
	}
	grant()
	return true
}

// moveOn sets until to at, if that is later.
func moveOn(until *atomic.Int64, at int64) {
	for {
		was := until.Load()
		if at <= was || until.CompareAndSwap(was, at) {
			return
		}
	}
}
