package broker

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// Heartbeat timing (actors/README.md rule 7: a node silent for 3 s is lost). Nodes beat every
// HeartbeatInterval; a node silent for LostAfter is declared lost, checked every checkEvery, so
// it is noticed at most LostAfter+checkEvery after its last beat.
const (
	HeartbeatInterval = 500 * time.Millisecond
	LostAfter         = 2500 * time.Millisecond
	checkEvery        = 100 * time.Millisecond
)

// Liveness tracks nodes by their heartbeats and tells who is lost.
type Liveness struct {
	lostAfter time.Duration
	onLost    func(node, boot string)
	// caughtUp, when set, is asked before a verdict: it returns once the heartbeats already
	// delivered to this process have been read (false: they could not be). A busy process
	// reads its messages late, and a node whose beats wait in its queue is not lost.
	caughtUp func() bool
	// link, when set, says whether this process's own connection is up and how many times it
	// has reconnected (linkOf). No heartbeat reaches a process cut off from NATS, so a NATS
	// restart silences every node at once: while the link is down no node's silence counts,
	// and after a reconnection every node gets lostAfter to beat again (a node that died
	// meanwhile is lost lostAfter after it). reconnects is the count last seen, read by Run only.
	link       func() (up bool, reconnects uint64)
	reconnects uint64
	// probe, when set, asks the server for a round trip within a bound: a connection up is not
	// one that works (liveness_probe.go). server remembers its answers, read by Run only.
	probe  func(within time.Duration) error
	server ownServer
	// answeredAt is when the server last answered a round trip (zero: never), read by Run
	// only: with no node to hear, its age is the silence that asks again (quiet).
	answeredAt time.Time
	log        *slog.Logger
	// reconnect, when set, drops the connection for nats.go to make a new one (dropperOf)
	// once the server has not answered for reconnectAfter, at reconnectedAt last; read by Run
	// only. unansweredSince mirrors server's for Ready (UnixNano, 0: it answers).
	reconnect       func() error
	reconnectedAt   time.Time
	unansweredSince atomic.Int64
	// born is when this tracker started: until lostAfter later, a node it has not heard of
	// may simply not have beaten yet (Lost).
	born time.Time
	// verdicts runs onLost on the losses Run finds, beside its checks.
	verdicts verdicts

	mu    sync.Mutex
	nodes map[string]*nodeLife
}

type nodeLife struct {
	last time.Time
	boot string
	lost bool
	// heard: this life has beaten (not only known from the registry). A lost node's beat
	// starts a new life, so a life heard and not lost is a node back since its verdict (back).
	heard bool
	// stopped: the node said it was shutting down (its down event), at stoppedAt. It is gone
	// as a lost node is, but was not lost. The beats its boot sends as it stops do not bring it
	// back; one of its boot lostAfter later does (a down read late, after the node had
	// restarted, or one that did not stop): only silence would make it go again.
	stopped   bool
	stoppedAt time.Time
	// tentative: not heard from yet, and known only from offline devices in the registry or
	// asked for by a young tracker (Lost). It may be alive (a rig whose controller is
	// unplugged keeps its node beating) or long gone: calls go to it, but it is not listed
	// alive until it beats, and its silence is no loss (there is nothing to declare or reap).
	tentative bool
	// gone ends when the node is declared lost: a call to it stops waiting by context.AfterFunc,
	// with no goroutine of its own.
	gone context.Context
	lose context.CancelFunc
}

func newNodeLife(last time.Time) *nodeLife {
	n := &nodeLife{last: last}
	n.gone, n.lose = context.WithCancel(context.Background())
	return n
}

// NewLiveness returns a tracker that calls onLost when a node is lost: from a goroutine of its
// own, beside its checks, one loss at a time in the order they were found. onLost's writes
// take handlerContext, which ends with Run's; Run returns once onLost has.
func NewLiveness(lostAfter time.Duration, onLost func(node, boot string)) *Liveness {
	if lostAfter <= 0 {
		lostAfter = LostAfter
	}
	return &Liveness{lostAfter: lostAfter, onLost: onLost, born: time.Now(), nodes: map[string]*nodeLife{},
		log: slog.New(slog.DiscardHandler), server: ownServer{
			holds:   "no node's silence counts until it answers (docs/operations.md, Node lost)",
			resumes: fmt.Sprintf("every node gets its full time to beat (%s)", lostAfter)}}
}

// Beat records a heartbeat.
func (l *Liveness) Beat(node, boot string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.nodes[node]
	if n != nil && n.stopped && boot == n.boot && at.Sub(n.stoppedAt) < l.lostAfter {
		return // a last beat of the stopping process, sent or read after its down event
	}
	if n == nil || n.lost {
		n = newNodeLife(time.Time{})
		l.nodes[node] = n
	}
	n.last, n.boot, n.tentative, n.heard = at, boot, false, true
}

// back says whether node has beaten since it was last declared lost: a reaping gateway, still
// writing its verdict, leaves the entries of a node back meanwhile as the node wrote them.
func (l *Liveness) back(node string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.nodes[node]
	return n != nil && n.heard && !n.lost
}

// Expect starts tracking a node known from the registry, giving it lostAfter to beat.
func (l *Liveness) Expect(node string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, ok := l.nodes[node]; !ok {
		l.nodes[node] = newNodeLife(time.Now())
	} else if !n.lost {
		n.tentative = false // an online device of its own: it was there lately
	}
}

// ExpectOffline starts tracking a node known from the registry by offline devices only: a
// node alive with every device offline (a fresh CLI client must reach it: emergency_stop keeps
// an offline rig's halt) or one gone long ago. It is tentative until it beats.
func (l *Liveness) ExpectOffline(node string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.nodes[node]; !ok {
		n := newNodeLife(time.Now())
		n.tentative = true
		l.nodes[node] = n
	}
}

// Lost returns a context that ends when node is declared lost; it has ended already if the
// node is lost or unknown. A node unknown to a tracker younger than lostAfter is not known
// yet rather than lost: it is tracked tentatively until lostAfter from the tracker's start.
func (l *Liveness) Lost(node string) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := l.nodes[node]; n != nil {
		return n.gone
	}
	if time.Since(l.born) < l.lostAfter {
		n := newNodeLife(l.born)
		n.tentative = true
		l.nodes[node] = n
		return n.gone
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// stoppedAt says when node said it stopped, if it did and has not come back since.
func (l *Liveness) stoppedAt(node string) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := l.nodes[node]; n != nil && n.stopped {
		return n.stoppedAt, true
	}
	return time.Time{}, false
}

// Alive lists the nodes not lost, sorted.
func (l *Liveness) Alive() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for name, n := range l.nodes {
		if !n.lost && !n.tentative {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Stopped marks a node that said it is shutting down (at is when that was heard): it is gone
// (Lost ends, Alive drops it) but never declared lost. False if the node was not alive
// (unknown, lost or stopped already).
func (l *Liveness) Stopped(node string, at time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.nodes[node]
	if n == nil || n.lost {
		return false
	}
	n.lost, n.stopped, n.stoppedAt = true, true, at
	n.lose()
	return true
}

// Run checks for silent nodes until ctx ends, and returns once the loss handler it started,
// if one runs, has returned too.
func (l *Liveness) Run(ctx context.Context) {
	t := time.NewTicker(checkEvery)
	defer t.Stop()
	defer l.verdicts.wait()
	if l.link != nil {
		_, l.reconnects = l.link()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if !l.linked(now) {
				continue // cut off from NATS ourselves, or not answered: nobody's silence is theirs
			}
			if l.caughtUp != nil {
				if longest := l.silence(now); longest > l.lostAfter {
					if !l.caughtUp() && longest < 2*l.lostAfter {
						continue // no verdict on heartbeats not yet read, for a while
					}
					now = time.Now()
				}
			}
			// Handled beside the checks: a verdict's writes must not hold them (liveness_verdicts.go).
			l.verdicts.add(ctx, l.sweep(now), l.onLost)
		}
	}
}

// handlerContext is the context the loss handler's work runs within: Run's while it handles a
// verdict Run found (it ends as Run's does), one that never ends when called otherwise.
func (l *Liveness) handlerContext() context.Context { return l.verdicts.context() }

// linked says whether this process's connection is up and its server answers, and restarts
// every node's clock at now if it came back since the last check: the nodes beat to a server
// this process could not hear, and each gets lostAfter from now.
func (l *Liveness) linked(now time.Time) bool {
	if l.link == nil {
		return l.answering(now)
	}
	up, reconnects := l.link()
	if !up {
		return false
	}
	if reconnects != l.reconnects {
		l.reconnects = reconnects
		l.restartClocks(now)
	}
	return l.answering(now)
}

// restartClocks gives every node not gone lostAfter from now to beat.
func (l *Liveness) restartClocks(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.nodes {
		if !n.lost && n.last.Before(now) {
			n.last = now
		}
	}
}

// silence is the longest a node not yet declared lost has been silent at now.
func (l *Liveness) silence(now time.Time) time.Duration {
	longest, _ := l.silenceOfAny(now)
	return longest
}

// silenceOfAny is silence, and whether any node is not yet declared lost.
func (l *Liveness) silenceOfAny(now time.Time) (longest time.Duration, some bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.nodes {
		if !n.lost {
			longest, some = max(longest, now.Sub(n.last)), true
		}
	}
	return longest, some
}

// sweep marks silent nodes lost and returns them as (node, boot) pairs.
func (l *Liveness) sweep(now time.Time) [][2]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var lost [][2]string
	for name, n := range l.nodes {
		if !n.lost && now.Sub(n.last) > l.lostAfter {
			n.lost = true
			n.lose()
			if !n.tentative {
				lost = append(lost, [2]string{name, n.boot})
			}
		}
	}
	return lost
}

// linkOf is Liveness.link for nc. IsConnected is read first: nats.go counts a reconnection
// before it shows the connection up, so a connection seen up has its latest reconnection
// counted.
func linkOf(nc *nats.Conn) func() (bool, uint64) {
	return func() (bool, uint64) {
		up := nc.IsConnected()
		return up, nc.Stats().Reconnects
	}
}
