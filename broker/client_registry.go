package broker

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// followRegistry keeps the registry cache up to date from w, and from a new watch each time
// the connection comes back (kvFollower).
func (c *Client) followRegistry(ctx context.Context, w jetstream.KeyWatcher, reconnected chan nats.Status) {
	f := &kvFollower{nc: c.nc, what: RegistryBucket, log: c.log, apply: c.applyRegistry,
		watch: func(ctx context.Context) (jetstream.KeyWatcher, error) { return c.stores.Registry.WatchAll(ctx) },
		caughtUp: func(seen map[string]bool) {
			c.forgetUnseen(seen)
			c.ready.Store(true)
		}}
	f.follow(ctx, w, reconnected)
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
