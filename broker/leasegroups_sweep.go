package broker

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// sweepGroupsEvery is how often a gateway looks for lease groups whose members' leases have all
// ended: a pass over the groups it keeps against its registry cache, microseconds for hundreds.
const sweepGroupsEvery = time.Second

// A group's members end one by one (released, expired, revoked) on their nodes, which say so in
// their registry entries; no one tells the group. Without a sweep, a group abandoned by its
// caller stayed in the bucket, and in every gateway's memory, until its last member's maximum
// (hours). A reaping client (a gateway) that keeps the groups looks through them against its
// registry cache, where a gateway learns of lease ends, and gives a group whose members have
// all ended a short life: groupKeep more, so that its handle is still answered with how each
// member ended meanwhile. Every gateway may do it; the write is conditional on the revision it
// read, so one wins and the others' writes are refused.

// groupBucket is c.groups.bucket, and starts the sweep of ended groups the first time a
// reaping client opens the bucket.
func (c *Client) groupBucket(ctx context.Context) (jetstream.KeyValue, error) {
	kv, err := c.groups.bucket(ctx)
	if err == nil && c.opts.Reap {
		c.groups.sweep.Do(func() { go c.sweepGroups(c.groups.life) })
	}
	return kv, err
}

// sweepAtStart starts the sweep of a reaping client (a gateway) now when the groups bucket
// exists, rather than when something first opens it: a gateway started after an upgrade would
// otherwise keep an older Corral's groups, whose members ended long ago, until their members'
// maximum (up to 4 h), as long as no one grouped leases through it. A bucket that is not there
// is not created: the first group creates it, and the sweep starts then (groupBucket). Only
// the look is made here; opening the bucket (its watch loaded) goes on in the background.
func (c *Client) sweepAtStart(ctx context.Context) {
	if !c.opts.Reap {
		return
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := c.groups.js.KeyValue(lctx, LeaseGroupBucket)
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound):
		return
	case err != nil:
		c.log.Warn("could not look for the lease groups bucket at start; ended groups are swept once a group is next used",
			"bucket", LeaseGroupBucket, "err", err)
		return
	}
	go func() {
		if _, err := c.groupBucket(c.groups.life); err != nil && c.groups.life.Err() == nil {
			c.log.Warn("could not open the lease groups bucket at start; ended groups are swept once a group is next used", "err", err)
		}
	}()
}

// sweepGroups ends the groups whose members have all ended, every sweepEvery until life ends.
func (c *Client) sweepGroups(life context.Context) {
	t := time.NewTicker(c.groups.sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-life.Done():
			return
		case <-t.C:
			c.endGroups(life)
		}
	}
}

// endGroups ends each group not yet ended whose members' leases the registry shows all ended.
func (c *Client) endGroups(ctx context.Context) {
	if !c.ready.Load() {
		return // an empty registry cache shows no lease ended
	}
	type kept struct {
		key string
		g   LeaseGroup
		rev uint64
	}
	var groups []kept
	c.groups.mu.RLock()
	for key, g := range c.groups.byKey {
		if g.Ended.IsZero() {
			groups = append(groups, kept{key, g, c.groups.revs[key]})
		}
	}
	c.groups.mu.RUnlock()
	for _, k := range groups {
		if c.membersEnded(k.g) {
			c.endGroup(ctx, k.key, k.g, k.rev)
		}
	}
}

// membersEnded says whether the registry shows every member's lease ended: the entry of its
// device on its node is at a later epoch (leased again, the node restarted), or at the
// member's epoch with no holder (a grant moves the epoch on; an end keeps it). An entry a
// moment behind the grant (an earlier epoch), or none, shows nothing ended.
func (c *Client) membersEnded(g LeaseGroup) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, m := range g.Members {
		d, ok := c.devices[RegistryKey(m.Node, m.Serial)]
		if !ok {
			d, ok = c.devices[Token(m.Serial)] // an older Corral's key
			ok = ok && d.Node == m.Node
		}
		if !ok || !(d.Epoch > m.Epoch || d.Epoch == m.Epoch && d.Holder == "") {
			return false
		}
	}
	return len(g.Members) > 0
}

// endGroup writes g ended, to live endedKeep more, if its entry is still at rev.
func (c *Client) endGroup(ctx context.Context, key string, g LeaseGroup, rev uint64) {
	g.Ended = time.Now().UTC()
	b, err := json.Marshal(g)
	if err != nil {
		return
	}
	ttl := min(c.groups.endedKeep, max(time.Until(g.LastMaxUntil())+groupKeep, time.Second))
	// A put with a TTL and an expected revision: jetstream's KeyValue has Create with a TTL and
	// Update with a revision, not both.
	msg := &nats.Msg{Subject: "$KV." + LeaseGroupBucket + "." + key, Data: b}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err = c.groups.js.PublishMsg(wctx, msg, jetstream.WithExpectLastSequencePerSubject(rev), jetstream.WithMsgTTL(ttl))
	var api *jetstream.APIError
	switch {
	case err == nil:
		c.log.Debug("lease group ended: its members' leases all ended", "group", g.ID, "kept", ttl)
	case errors.As(err, &api) && (api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant):
		// Another gateway ended it first, or it was released or changed: the watch brings that.
	default:
		c.log.Warn("a lease group whose members all ended could not be ended; it stays until its members' maximum or the next try",
			"group", g.ID, "err", err)
	}
}
