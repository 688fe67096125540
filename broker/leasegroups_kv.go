package broker

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// groupKeep is how long a group's entry outlives its last member's maximum (clocks differ), and
// how long a deleted entry's marker stays for watchers to see. A group whose members' leases
// have all ended is kept as long (leasegroups_sweep.go): its handle is then still answered with
// how each member ended, not as a handle no group has.
const groupKeep = time.Minute

// leaseGroups is a client's view of LeaseGroupBucket: opened (created if missing) on first use,
// so that a client that never groups leases never needs it, then kept from a watch, as the
// registry is.
type leaseGroups struct {
	life context.Context // the client's
	js   jetstream.JetStream
	log  *slog.Logger

	open  sync.Mutex // held while the bucket is opened
	mu    sync.RWMutex
	kv    jetstream.KeyValue
	byKey map[string]LeaseGroup // by bucket key
	revs  map[string]uint64     // each group's revision, by bucket key: ending it is conditional on it

	sweep      sync.Once     // starts the sweep of ended groups, on a reaping client (leasegroups_sweep.go)
	sweepEvery time.Duration // how often it looks: sweepGroupsEvery (tests: shorter, ClientOptions)
	endedKeep  time.Duration // how long an ended group is kept: groupKeep (tests: shorter)
}

func newLeaseGroups(life context.Context, js jetstream.JetStream, log *slog.Logger, sweepEvery, endedKeep time.Duration) *leaseGroups {
	return &leaseGroups{life: life, js: js, log: log, byKey: map[string]LeaseGroup{}, revs: map[string]uint64{},
		sweepEvery: cmp.Or(sweepEvery, sweepGroupsEvery), endedKeep: cmp.Or(endedKeep, groupKeep)}
}

// bucket opens the bucket and its watch once; a failure is tried again at the next use.
func (lg *leaseGroups) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	lg.mu.RLock()
	kv := lg.kv
	lg.mu.RUnlock()
	if kv != nil {
		return kv, nil
	}
	lg.open.Lock()
	defer lg.open.Unlock()
	if lg.kv != nil {
		return lg.kv, nil
	}
	kv, err := openLeaseGroups(ctx, lg.js)
	if err != nil {
		return nil, fmt.Errorf("lease groups bucket %s: %w (is the NATS server 2.11 or later, and may this user use the bucket?)", LeaseGroupBucket, err)
	}
	life, stop := context.WithCancel(lg.life)
	reconnected := reconnects(lg.js.Conn())
	w, err := watchAllFor(life, lg.js.Conn(), kv) // consumer_delete_allowed.go
	if err != nil {
		stop()
		lg.js.Conn().RemoveStatusListener(reconnected)
		return nil, fmt.Errorf("watch the lease groups: %w", err)
	}
	loaded := make(chan struct{})
	go func() {
		defer stop()
		lg.follow(life, kv, w, reconnected, loaded)
	}()
	select {
	case <-loaded:
	case <-ctx.Done():
		stop()
		return nil, fmt.Errorf("lease groups not loaded: %w", ctx.Err())
	}
	lg.mu.Lock()
	lg.kv = kv
	lg.mu.Unlock()
	return kv, nil
}

// openLeaseGroups opens the bucket, or creates it when no gateway has yet (an admin's CLI
// first on a farm: a gateway's start makes it, EnsureStores).
func openLeaseGroups(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, LeaseGroupBucket)
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return kv, err
	}
	r, err := leaseGroupReplicas(ctx, js, 0)
	if err != nil {
		return nil, err
	}
	if _, err = js.CreateStream(ctx, leaseGroupsStreamConfig(r)); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return nil, err
	}
	return js.KeyValue(ctx, LeaseGroupBucket) // made here, or by another process meanwhile
}

// leaseGroupsStreamConfig is the stream behind the bucket, as nats.go makes a bucket with
// per-key TTLs (each group lives until its last member's maximum, or a minute once all have
// ended: LimitMarkerTTL).
func leaseGroupsStreamConfig(replicas int) jetstream.StreamConfig {
	cfg := kvStreamConfig(jetstream.KeyValueConfig{Bucket: LeaseGroupBucket,
		Description: "Corral lease groups (acquire_device count > 1), keyed by the group handle's SHA-256; member handles sealed",
		History:     1, Replicas: replicas, Storage: jetstream.FileStorage}, true)
	cfg.AllowMsgTTL, cfg.SubjectDeleteMarkerTTL = true, groupKeep
	return cfg
}

// leaseGroupReplicas are the replicas the bucket is to have: want, or when want is 0 those it
// has, or those of the leases' bucket when there is none yet.
func leaseGroupReplicas(ctx context.Context, js jetstream.JetStream, want int) (int, error) {
	if want > 0 {
		return want, nil
	}
	st, err := js.Stream(ctx, kvStream(LeaseGroupBucket))
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return replicas(ctx, js, kvStream(LeaseBucket), 0)
	}
	if err != nil {
		return 0, err
	}
	return max(st.CachedInfo().Config.Replicas, 1), nil
}

// follow keeps the groups from w, and from a new watch each time the connection comes back
// (kvFollower), until life ends; loaded closes once the first watch has delivered them all.
func (lg *leaseGroups) follow(life context.Context, kv jetstream.KeyValue, w jetstream.KeyWatcher, reconnected chan nats.Status, loaded chan struct{}) {
	var once sync.Once
	f := &kvFollower{nc: lg.js.Conn(), what: LeaseGroupBucket, log: lg.log, apply: lg.apply,
		watch: func(ctx context.Context) (jetstream.KeyWatcher, error) { return kv.WatchAll(ctx) },
		caughtUp: func(seen map[string]bool) {
			lg.forgetUnseen(seen)
			once.Do(func() { close(loaded) })
		}}
	f.follow(life, w, reconnected)
}

// apply applies one bucket entry (or its deletion) to the groups.
func (lg *leaseGroups) apply(e jetstream.KeyValueEntry) {
	if e.Operation() != jetstream.KeyValuePut {
		lg.forget(e.Key())
		return
	}
	g, err := decodeLeaseGroup(e.Key(), e.Value())
	if err != nil {
		lg.log.Warn("lease group entry ignored", "key", e.Key(), "err", err)
		return
	}
	lg.remember(e.Key(), g, e.Revision())
}

// forgetUnseen drops the groups a new watch did not deliver among the bucket's entries.
func (lg *leaseGroups) forgetUnseen(seen map[string]bool) {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	for key := range lg.byKey {
		if !seen[key] {
			delete(lg.byKey, key)
			delete(lg.revs, key)
		}
	}
}

func (lg *leaseGroups) remember(key string, g LeaseGroup, rev uint64) {
	lg.mu.Lock()
	if rev >= lg.revs[key] { // the watch may bring the creation after CreateLeaseGroup kept it
		lg.byKey[key], lg.revs[key] = g, rev
	}
	lg.mu.Unlock()
}

func (lg *leaseGroups) forget(key string) {
	lg.mu.Lock()
	delete(lg.byKey, key)
	delete(lg.revs, key)
	lg.mu.Unlock()
}

// CreateLeaseGroup keeps a new group under its handle until its last member's maximum.
func (c *Client) CreateLeaseGroup(ctx context.Context, handle string, g LeaseGroup) error {
	kv, err := c.groupBucket(ctx)
	if err != nil {
		return err
	}
	b, err := json.Marshal(g)
	if err != nil {
		return fmt.Errorf("encode lease group: %w", err)
	}
	ttl := max(time.Until(g.LastMaxUntil())+groupKeep, time.Second)
	rev, err := kv.Create(ctx, groupKey(handle), b, jetstream.KeyTTL(ttl))
	if err != nil {
		return fmt.Errorf("store lease group %s: %w", g.ID, err)
	}
	c.groups.remember(groupKey(handle), g, rev)
	return nil
}

// LeaseGroup finds the group of a handle: from the watch, else from the bucket (a group made
// on another gateway a moment ago). ErrNotFound when there is none.
func (c *Client) LeaseGroup(ctx context.Context, handle string) (LeaseGroup, error) {
	kv, err := c.groupBucket(ctx)
	if err != nil {
		return LeaseGroup{}, err
	}
	key := groupKey(handle)
	c.groups.mu.RLock()
	g, ok := c.groups.byKey[key]
	c.groups.mu.RUnlock()
	if ok {
		return g, nil
	}
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return g, ErrNotFound
	}
	if err != nil {
		return g, fmt.Errorf("read lease group: %w", err)
	}
	return decodeLeaseGroup(key, e.Value())
}

// decodeLeaseGroup reads a bucket entry, which must be the group its key names.
func decodeLeaseGroup(key string, data []byte) (LeaseGroup, error) {
	var g LeaseGroup
	if err := json.Unmarshal(data, &g); err != nil {
		return g, fmt.Errorf("lease group unreadable: %w", err)
	}
	if g.ID != idOfKey(key) {
		return g, fmt.Errorf("lease group %q kept under the key of %s", g.ID, idOfKey(key))
	}
	return g, nil
}

// DeleteLeaseGroup forgets a group (its members' leases are the nodes' business).
func (c *Client) DeleteLeaseGroup(ctx context.Context, handle string) error {
	kv, err := c.groupBucket(ctx)
	if err != nil {
		return err
	}
	if err := kv.Purge(ctx, groupKey(handle), jetstream.PurgeTTL(groupKeep)); err != nil {
		return fmt.Errorf("delete lease group: %w", err)
	}
	c.groups.forget(groupKey(handle))
	return nil
}

// LeaseGroups lists the groups whose members may still be held: not those seen all ended.
func (c *Client) LeaseGroups(ctx context.Context) ([]LeaseGroup, error) {
	if _, err := c.groupBucket(ctx); err != nil {
		return nil, err
	}
	now := time.Now()
	c.groups.mu.RLock()
	defer c.groups.mu.RUnlock()
	out := make([]LeaseGroup, 0, len(c.groups.byKey))
	for _, g := range c.groups.byKey {
		if g.Ended.IsZero() && now.Before(g.LastMaxUntil()) {
			out = append(out, g)
		}
	}
	return out, nil
}

// LeaseEnd finds the event that ended a device's lease of this epoch (released, expired or
// revoked), if the event stream still has it as the latest of its kind.
func (c *Client) LeaseEnd(ctx context.Context, node, serial string, epoch uint64) (Event, bool) {
	for _, what := range []string{"expired", "revoked", "released"} {
		m, err := c.stores.Events.GetLastMsgForSubject(ctx, fmt.Sprintf(EventLeaseT, node, Token(serial), what))
		if err != nil {
			continue
		}
		var ev Event
		switch {
		case json.Unmarshal(m.Data, &ev) != nil:
		case newerWire(ev.V):
			c.newer.warn(c.log, "event "+node, ev.V, "a lease event of a newer wire version skipped: upgrade the gateway", "node", node, "serial", serial)
		case ev.Epoch == epoch:
			return ev, true
		}
	}
	return Event{}, false
}

// MirroredLease reads a device's lease as its node mirrors it to KV (handle blanked): a moment
// behind the node, and enough to tell whether a lease is still held.
func (c *Client) MirroredLease(ctx context.Context, node, serial string) (Lease, bool) {
	var l Lease
	e, err := c.stores.Leases.Get(ctx, LeaseKey(node, serial))
	if err != nil || json.Unmarshal(e.Value(), &l) != nil || l.Node != node {
		return l, false
	}
	return l.Public(), true
}
