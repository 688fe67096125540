package broker

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// legacyDropBudget bounds a reaping client's removal of the older Corral's entries of a node.
const legacyDropBudget = 5 * time.Second

// legacyEntries keeps what a client needs to tell an older Corral's registry entry (under the
// serial alone, CheckEntryKey) that still speaks for a node not yet upgraded from a leftover of
// a node that was: such a node writes its own keys, and never the old one again. A leftover
// stays as the old node left it (online, leased to a holder long gone) and nothing else
// updates it: the gateway writes it offline only when its node is lost, and a node restarted
// under the same id never is. Its fields are guarded by the client's mu.
type legacyEntries struct {
	ctx context.Context
	// scoped counts each node's entries under its own keys: one is enough to know it upgraded.
	scoped map[string]int
	// dropping are the leftovers a reaping client is deleting (dropLegacy).
	dropping map[string]bool
}

func newLegacyEntries(ctx context.Context) legacyEntries {
	return legacyEntries{ctx: ctx, scoped: map[string]int{}, dropping: map[string]bool{}}
}

// superseded says whether e is a leftover of an older Corral: under the serial alone, of a
// node that writes node-scoped keys now. Lists and calls skip it.
func (l legacyEntries) superseded(e cachedEntry) bool { return e.legacy && l.scoped[e.Node] > 0 }

// count counts e in (delta 1) or out (-1); it reports whether e made its node known as
// upgraded.
func (l legacyEntries) count(e cachedEntry, delta int) bool {
	if e.legacy {
		return false
	}
	n := l.scoped[e.Node] + delta
	if n <= 0 {
		delete(l.scoped, e.Node)
	} else {
		l.scoped[e.Node] = n
	}
	return n == 1 && delta > 0
}

// leftovers returns the entries a reaping client should delete now that e is in the cache:
// e itself when it is a leftover, or every leftover of e's node when e made the node known as
// upgraded. c.mu is held.
func (c *Client) leftovers(e cachedEntry, upgraded bool) []cachedEntry {
	if !c.opts.Reap {
		return nil
	}
	var out []cachedEntry
	take := func(d cachedEntry) {
		if !c.legacy.dropping[d.key] {
			c.legacy.dropping[d.key] = true
			out = append(out, d)
		}
	}
	switch {
	case c.legacy.superseded(e):
		take(e)
	case upgraded:
		for _, d := range c.devices {
			if d.Node == e.Node && c.legacy.superseded(d) {
				take(d)
			}
		}
	}
	return out
}

// dropLegacy deletes leftovers from the registry, and their leases (an older Corral kept
// those under the serial alone too), each at the revision this client judged: several
// gateways may try, one deletes it and says so. The gateway's NATS user may (it reaps those
// keys); whatever fails leaves the entry hidden, as every client hides it.
func (c *Client) dropLegacy(entries []cachedEntry) {
	ctx, cancel := context.WithTimeout(c.legacy.ctx, legacyDropBudget)
	defer cancel()
	for _, d := range entries {
		err := c.stores.Registry.Delete(ctx, d.key, jetstream.LastRevision(d.revision))
		switch {
		case err == nil:
			c.log.Info("registry entry of an older Corral removed: its node writes node-scoped keys now",
				"key", d.key, "node", d.Node, "serial", d.Serial, "state", d.State)
			if err := c.stores.Leases.Delete(ctx, d.key); err != nil {
				c.log.Debug("lease delete", "key", d.key, "err", err)
			}
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, context.Canceled):
			// Changed since (another gateway deleted it), or this client is stopping.
			c.log.Debug("older Corral's registry entry left", "key", d.key, "err", err)
		default:
			c.log.Warn("could not remove an older Corral's registry entry; it stays hidden",
				"key", d.key, "node", d.Node, "serial", d.Serial, "err", err,
				"hint", "nats kv del "+RegistryBucket+" "+d.key+" as the gateway user removes it")
		}
	}
	c.mu.Lock()
	for _, d := range entries {
		delete(c.legacy.dropping, d.key)
	}
	c.mu.Unlock()
}
