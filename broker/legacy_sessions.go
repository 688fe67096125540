package broker

import (
	"context"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Keys of SessionBucket that are one token are those of Corral before principal keys (a
// session's entry under its id alone, a holder's selection, latest_*): a gateway still reads
// them for a while after its start, after each miss under the principal's key. That read cost
// each call without a selection a second KV read, though such keys are usually gone.
// LegacySessions follows them from a watch instead, so that a miss asks NATS again only for a
// key the watch saw, or while the watch cannot vouch for what it saw.
//
// What the watch vouches for: every write of such a key up to its catch-up, and each one since
// as soon as the server delivers it (well under a millisecond on a live link); the writes of
// this client (ownLegacyWrites) at once. A key another process creates is unseen until then,
// as it would be to a KV read that came first.

// maxOwnLegacy bounds the one-token keys a client remembers writing; past it its followers
// vouch for nothing (Corral writes none: its own keys are under a principal).
const maxOwnLegacy = 10_000

// ownLegacyWrites are the one-token keys a client wrote to SessionBucket: its followers do
// not answer them absent, whatever their watch has delivered yet.
type ownLegacyWrites struct {
	mu       sync.Mutex
	keys     map[string]struct{}
	overflow bool
}

// note is called before a client writes key.
func (o *ownLegacyWrites) note(key string) {
	if strings.Contains(key, ".") {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.overflow {
		return
	}
	if o.keys == nil {
		o.keys = map[string]struct{}{}
	}
	o.keys[key] = struct{}{}
	o.overflow = len(o.keys) > maxOwnLegacy
}

// mayHold says whether this client wrote key, or more such keys than it remembers.
func (o *ownLegacyWrites) mayHold(key string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.keys[key]
	return ok || o.overflow
}

// LegacySessions is what a watch of SessionBucket's one-token keys has seen of them.
type LegacySessions struct {
	nc   *nats.Conn
	own  *ownLegacyWrites
	done chan struct{}

	mu   sync.Mutex
	keys map[string]struct{} // held now, as the watch saw
	// sure: the current watch has delivered every entry as of its start, and the connection
	// did not come back since it started (reconnects then): a watch across a cut link may
	// have missed writes, until it is made again.
	sure       bool
	reconnects uint64
}

// FollowLegacySessions watches SessionBucket's one-token keys until ctx ends or the client
// stops; the watch is made again each time the connection comes back (kvFollower).
func (c *Client) FollowLegacySessions(ctx context.Context) *LegacySessions {
	l := &LegacySessions{nc: c.nc, own: &c.ownLegacy, done: make(chan struct{}), keys: map[string]struct{}{}}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.groups.life, cancel) // the client's
	reconnected := reconnects(c.nc)
	f := &kvFollower{nc: c.nc, what: SessionBucket + " (keys of Corral before principal keys)", log: c.log,
		watch: func(ctx context.Context) (jetstream.KeyWatcher, error) {
			l.watching()
			return c.stores.Sessions.WatchFiltered(ctx, []string{"*"}, jetstream.MetaOnly())
		},
		apply:    l.apply,
		caughtUp: l.caughtUp,
	}
	go func() {
		defer close(l.done)
		defer cancel()
		defer stop()
		defer l.stopped()
		w := f.rewatch(ctx, reconnected)
		if w == nil {
			c.nc.RemoveStatusListener(reconnected)
			return
		}
		f.follow(ctx, w, reconnected)
	}()
	return l
}

// Absent says whether SessionBucket surely has no entry under key, one token: false when the
// watch saw it, this client wrote it, or the watch cannot vouch (not caught up yet, the
// connection came back since it started, stopped). It asks NATS nothing.
func (l *LegacySessions) Absent(key string) bool {
	if strings.Contains(key, ".") || l.own.mayHold(key) {
		return false
	}
	reconnects := l.nc.Stats().Reconnects
	l.mu.Lock()
	defer l.mu.Unlock()
	_, held := l.keys[key]
	return l.sure && reconnects == l.reconnects && !held && l.nc.IsConnected()
}

// Done is closed once the watch has stopped.
func (l *LegacySessions) Done() <-chan struct{} { return l.done }

// watching is called as a watch is made: until it catches up, nothing is vouched for.
func (l *LegacySessions) watching() {
	reconnects := l.nc.Stats().Reconnects // before the watch: one since makes it unsure
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sure, l.reconnects = false, reconnects
}

func (l *LegacySessions) apply(e jetstream.KeyValueEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.Operation() == jetstream.KeyValuePut {
		l.keys[e.Key()] = struct{}{}
	} else {
		delete(l.keys, e.Key())
	}
}

// caughtUp forgets the keys deleted while no watch was looking.
func (l *LegacySessions) caughtUp(seen map[string]bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range l.keys {
		if !seen[k] {
			delete(l.keys, k)
		}
	}
	l.sure = true
}

func (l *LegacySessions) stopped() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sure = false
}
