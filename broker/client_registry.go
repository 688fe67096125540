package broker

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// rewatchEvery is how often a watch of the registry that could not be made again (the server
// just restarted, JetStream not up yet) is retried.
const rewatchEvery = 250 * time.Millisecond

// followRegistry keeps the registry cache up to date from w, and from a new watch each time
// the connection comes back. A watch is a consumer on the server: one that a restarted server
// no longer has, or that delivered while the link was down, leaves the cache stale until the
// NATS client notices the missing heartbeats, 10 to 20 s later.
func (c *Client) followRegistry(ctx context.Context, w jetstream.KeyWatcher, reconnected chan nats.Status) {
	defer c.nc.RemoveStatusListener(reconnected)
	for {
		again := c.readRegistry(ctx, w, reconnected)
		stopWatch(w)
		if !again {
			return
		}
		if w = c.rewatch(ctx, reconnected); w == nil {
			return
		}
		c.log.Info("registry watched again after a reconnection")
	}
}

// readRegistry applies w's entries to the cache until ctx ends (false), or the connection came
// back or w ended on its own (true: watch again). When w has delivered the registry's entries
// as of its start, the cache forgets the keys it did not deliver: deleted while this client
// was not watching.
func (c *Client) readRegistry(ctx context.Context, w jetstream.KeyWatcher, reconnected <-chan nats.Status) bool {
	seen := map[string]bool{} // keys of w's first entries; nil once they are all in
	for {
		select {
		case <-ctx.Done():
			return false
		case <-reconnected:
			return true
		case e, ok := <-w.Updates():
			if !ok {
				return ctx.Err() == nil && !c.nc.IsClosed()
			}
			if e == nil {
				c.forgetUnseen(seen)
				seen = nil
				c.ready.Store(true)
				continue
			}
			if seen != nil {
				seen[e.Key()] = true
			}
			c.applyRegistry(e)
		}
	}
}

// rewatch watches the registry again, retrying until it can; nil when ctx ends or the
// connection is closed for good.
func (c *Client) rewatch(ctx context.Context, reconnected <-chan nats.Status) jetstream.KeyWatcher {
	for {
		drain(reconnected) // this watch starts after them
		w, err := c.stores.Registry.WatchAll(ctx)
		if err == nil {
			return w
		}
		c.log.Warn("the device registry cannot be watched again yet; retrying", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(rewatchEvery):
		}
		if c.nc.IsClosed() {
			return nil
		}
	}
}

// stopWatch stops w and takes what it still delivers: its delivery would otherwise block on a
// full channel, and never end.
func stopWatch(w jetstream.KeyWatcher) {
	_ = w.Stop()
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

// applyRegistry applies one registry entry (or its deletion) to the cache.
func (c *Client) applyRegistry(e jetstream.KeyValueEntry) {
	if e.Operation() != jetstream.KeyValuePut {
		c.mu.Lock()
		c.forget(e.Key())
		c.mu.Unlock()
		return
	}
	var d DeviceEntry
	if err := json.Unmarshal(e.Value(), &d); err != nil {
		c.log.Warn("registry entry unreadable; skipped", "key", e.Key(), "err", err)
		return
	}
	if !CheckEntryKey(e.Key(), d) {
		// Written by another node than the entry names, or under the keys of an older
		// Corral: trusting it would route the device's calls to whoever wrote it.
		c.log.Warn("registry entry under a key not its node's; ignored", "key", e.Key(), "node", d.Node, "serial", d.Serial)
		return
	}
	c.mu.Lock()
	since, applied := time.Now(), (*appliedLease)(nil)
	if old, ok := c.devices[e.Key()]; ok {
		since, applied = old.since, old.applied.keptOver(d)
		c.unindex(old.Serial, e.Key())
	}
	c.keysOf[d.Serial] = append(c.keysOf[d.Serial], e.Key())
	c.devices[e.Key()] = cachedEntry{DeviceEntry: d, revision: e.Revision(), key: e.Key(), since: since, applied: applied}
	c.mu.Unlock()
	if d.State != StateOffline {
		c.live.Expect(d.Node)
	}
}

// forget drops key's entry; c.mu is held.
func (c *Client) forget(key string) {
	if old, ok := c.devices[key]; ok {
		c.unindex(old.Serial, key)
	}
	delete(c.devices, key)
}

// forgetUnseen drops the entries a new watch did not deliver among the registry's entries.
func (c *Client) forgetUnseen(seen map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key := range c.devices {
		if !seen[key] {
			c.forget(key)
		}
	}
}
