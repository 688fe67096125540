package broker

import (
	"context"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// rewatchEvery is how often a watch that could not be made again (the server just restarted,
// JetStream not up yet) is retried.
const rewatchEvery = 250 * time.Millisecond

// kvFollower keeps a client's cache of a KV bucket from a watch, made again each time the
// connection comes back. A watch is a consumer on the server: one that a restarted server no
// longer has, or that delivered into a cut link, leaves the cache stale until the NATS client
// notices the missing heartbeats, 10 to 20 s later.
type kvFollower struct {
	nc    *nats.Conn
	what  string // the bucket, as a log names it
	log   *slog.Logger
	watch func(ctx context.Context) (jetstream.KeyWatcher, error)
	apply func(jetstream.KeyValueEntry)
	// caughtUp runs once a watch has delivered the bucket's entries as of its start, seen their
	// keys: the cache forgets the others, deleted while no watch was looking.
	caughtUp func(seen map[string]bool)
}

// reconnects tells of nc's reconnections, for follow: call it before the first watch, so that
// none between the two goes unseen.
func reconnects(nc *nats.Conn) chan nats.Status { return nc.StatusChanged(nats.CONNECTED) }

// follow reads w, then each new watch, until ctx ends.
func (f *kvFollower) follow(ctx context.Context, w jetstream.KeyWatcher, reconnected chan nats.Status) {
	defer f.nc.RemoveStatusListener(reconnected)
	for {
		again := f.read(ctx, w, reconnected)
		// A watch that ends with the follower is left to the connection's close when its user
		// may not delete consumers, as stopping it would: the server drops the ephemeral
		// consumer itself once the connection has gone (5 s, its default).
		stopWatch(w, again || mayDeleteConsumers(f.nc))
		if !again {
			return
		}
		if w = f.rewatch(ctx, reconnected); w == nil {
			return
		}
		f.log.Info("watching again after a reconnection", "bucket", f.what)
	}
}

// read applies w's entries until ctx ends (false), or the connection came back or w ended on
// its own (true: watch again).
func (f *kvFollower) read(ctx context.Context, w jetstream.KeyWatcher, reconnected <-chan nats.Status) bool {
	seen := map[string]bool{} // keys of w's first entries; nil once they are all in
	for {
		select {
		case <-ctx.Done():
			return false
		case <-reconnected:
			return true
		case e, ok := <-w.Updates():
			if !ok {
				return ctx.Err() == nil && !f.nc.IsClosed()
			}
			if e == nil {
				if seen != nil {
					f.caughtUp(seen)
				}
				seen = nil
				continue
			}
			if seen != nil {
				seen[e.Key()] = true
			}
			f.apply(e)
		}
	}
}

// rewatch watches again, retrying until it can; nil when ctx ends or the connection is
// closed for good.
func (f *kvFollower) rewatch(ctx context.Context, reconnected <-chan nats.Status) jetstream.KeyWatcher {
	for {
		drain(reconnected) // this watch starts after them
		w, err := watchFor(ctx, f.nc, f.watch)
		if err == nil {
			return w
		}
		f.log.Warn("cannot watch again yet; retrying", "bucket", f.what, "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(rewatchEvery):
		}
		if f.nc.IsClosed() {
			return nil
		}
	}
}

// stopWatch stops w if stop, and takes what it still delivers (until the connection closes,
// if not stopped): its delivery would otherwise block on a full channel, and never end.
func stopWatch(w jetstream.KeyWatcher, stop bool) {
	if stop {
		_ = w.Stop()
	}
	go func() {
		for range w.Updates() {
		}
	}()
}

func drain(ch <-chan nats.Status) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}
