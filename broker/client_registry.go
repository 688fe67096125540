package broker

import (
	"context"
	"encoding/json"
	"strings"
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
	err := json.Unmarshal(e.Value(), &d)
	v := d.V
	if err != nil {
		v = wireVersionOf(e.Value()) // a newer Corral may have changed a field's type
	}
	if newerWire(v) {
		// Its fields may not mean what this Corral reads them as: what it said before is no
		// longer so either.
		c.mu.Lock()
		c.forget(e.Key())
		c.mu.Unlock()
		// Said once per node, not per device: a node upgraded ahead writes all its entries so.
		c.newer.warn(c.log, "registry "+registryNode(e.Key(), d), v, "registry entry of a newer wire version skipped: upgrade the gateway",
			"key", e.Key(), "node", d.Node, "serial", d.Serial)
		return
	}
	if err != nil {
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
	entry := cachedEntry{DeviceEntry: d, revision: e.Revision(), key: e.Key(), since: time.Now(), legacy: e.Key() == Token(d.Serial)}
	old, known := c.devices[e.Key()]
	if known {
		entry.since, entry.applied = old.since, old.applied.keptOver(d)
		c.unindex(old.Serial, e.Key())
	}
	c.keysOf[d.Serial] = append(c.keysOf[d.Serial], e.Key())
	c.devices[e.Key()] = entry
	// A key's node is the same in every entry under it (CheckEntryKey): counted once.
	leftovers := c.leftovers(entry, !known && c.legacy.count(entry, 1))
	c.mu.Unlock()
	if len(leftovers) > 0 {
		go c.dropLegacy(leftovers)
	}
	if d.State != StateOffline {
		c.live.Expect(d.Node)
	} else {
		c.live.ExpectOffline(d.Node) // alive perhaps, its devices offline: its calls go to it
	}
}

// registryNode is the node of a registry entry: the one it names, or, when it could not be
// decoded, the first token of its key (a serial's alone for an older Corral's key).
func registryNode(key string, d DeviceEntry) string {
	if d.Node != "" {
		return d.Node
	}
	node, _, _ := strings.Cut(key, ".")
	return node
}

// forget drops key's entry; c.mu is held.
func (c *Client) forget(key string) {
	if old, ok := c.devices[key]; ok {
		c.unindex(old.Serial, key)
		c.legacy.count(old, -1)
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

// RegistryVersion changes whenever Devices would answer otherwise: a reader that rebuilds
// what it shows from Devices (the console's grid long poll) compares it instead, and rebuilds
// only when it moved. It folds in each cached entry's revision, new at every put (so a put,
// a delete and what a resync after a reconnection changed all move it; an entry delivered
// again unchanged does not), and each lease shown ahead of the registry while it is shown
// (client_leaseview.go), which ends with time alone. It is a pass over the cache, not a copy
// of it: about a tenth of a millisecond for 10,000 devices, against tens to build a grid.
func (c *Client) RegistryVersion() uint64 {
	now := time.Now()
	c.mu.RLock()
	defer c.mu.RUnlock()
	v := mix64(uint64(len(c.devices)))
	for _, e := range c.devices {
		v += mix64(e.revision)
		if a := e.applied; a != nil && now.Before(a.until) {
			v += mix64(a.epoch ^ uint64(a.until.UnixNano()) ^ uint64(len(a.holder))<<56)
		}
	}
	return v
}

// mix64 scatters x over 64 bits (SplitMix64's finalizer): the sum of the mixes of different
// sets of revisions then differs but by a 2⁻⁶⁴ chance, where a plain sum could come out the
// same for different caches (two entries deleted, and one put whose revision is their sum).
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
