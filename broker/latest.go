package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// maxLatestInMemory bounds the latest-task ids a gateway keeps in memory; past it the map
// starts over (the KV still has every one).
const maxLatestInMemory = 50_000

// latestTasks remembers the latest task of each session or holder. A gateway records it in
// memory at once and writes it to the corral_sessions KV in the background, so that other
// gateways (and this one after a restart) find it too, within latestWriteEvery: the KV write
// costs a JetStream round trip, which no tool call should wait for or pay for each time.
// Writes of the same key are coalesced and go out in order, so the KV never goes back to an
// older task of this gateway's. A read asks the KV too (one Get), as a caller may have run a
// task through another gateway since (latestOf).
type latestTasks struct {
	kv  jetstream.KeyValue
	log *slog.Logger

	mu      sync.Mutex
	known   map[string]recorded // key → the task this gateway recorded last
	pending map[string]string   // key → task id, not yet in the KV
	wake    chan struct{}

	unstored *logLimit // the failed writes' warning, once a minute: a full bucket fails each one

	// fresh are the principals' prefixes of keys this gateway had not recorded before, pending
	// with them: after their write, each principal's latest tasks are counted and trimmed to
	// keep (0: not; BoundLatestTasks), by trim.
	fresh   map[string]bool
	keep    int
	trim    func(ctx context.Context, prefix string, keep int) (int, error)
	untrimd *logLimit

	writing sync.Mutex // one batch at a time, so an older id never lands after a newer one
}

func newLatestTasks(kv jetstream.KeyValue, log *slog.Logger) *latestTasks {
	return &latestTasks{kv: kv, log: log, known: map[string]recorded{}, pending: map[string]string{},
		wake: make(chan struct{}, 1), unstored: newLogLimit(), fresh: map[string]bool{}, untrimd: newLogLimit()}
}

// latestKey is the corral_sessions key of the latest task of who: for who under a principal
// (UnderPrincipal), "p.<tag>.l." and the rest as a token, or "=" and its hash when that is too
// long for a key (a token never starts with "="); for who alone, as Corral before keyed it,
// "latest_" and who as a token, or "latest_h" and its hash.
func latestKey(who string) string {
	prefix, rest, hashed := "latest_", who, "latest_h"
	if p, r, ok := cutPrincipalKey(who); ok {
		prefix, rest, hashed = p+latestPart, r, p+latestPart+"="
	}
	if k := prefix + Token(rest); len(k) <= 200 {
		return k
	}
	sum := sha256.Sum256([]byte(rest))
	return hashed + hex.EncodeToString(sum[:16])
}

// BoundLatestTasks makes this client keep at most keep latest tasks of each principal in the
// KV (those recorded under it, UnderPrincipal): after it writes a principal's key it had not
// recorded before, it drops that principal's oldest beyond keep (by last write). A dropped
// one reads as none (get_latest_task: no latest task).
func (c *Client) BoundLatestTasks(keep int) {
	l := c.latest
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keep = keep
	l.trim = c.purgeOldest
}

// recorded is a latest task this gateway recorded: when, and the KV revision of its write
// (0 until written).
type recorded struct {
	id  string
	at  time.Time
	rev uint64
}

// LatestTask reads the id of the latest task of who: a session or a holder, as the gateway
// names them. Of what this gateway recorded and what the KV holds, the newer wins (latestOf);
// the memory answers alone when the KV cannot.
func (c *Client) LatestTask(ctx context.Context, who string) (string, bool) {
	key := latestKey(who)
	c.latest.mu.Lock()
	mine, ok := c.latest.known[key]
	c.latest.mu.Unlock()
	e, err := c.latest.kv.Get(ctx, key)
	if err != nil || !validToken(string(e.Value())) {
		return mine.id, ok
	}
	if ok && !latestOf(mine, e) {
		return mine.id, true
	}
	return string(e.Value()), true
}

// latestOf says whether the KV's entry e is newer than mine, the task this gateway recorded
// last under its key. Once mine is written, its revision orders them exactly: a later one is
// another gateway's write since. Until then (latestWriteEvery at most, unless NATS is slow)
// their times do, this host's clock against the server's: only tasks ended that close
// together, across gateways, can be told apart wrong.
func latestOf(mine recorded, e jetstream.KeyValueEntry) bool {
	if mine.rev != 0 {
		return e.Revision() > mine.rev
	}
	return e.Created().After(mine.at)
}

// SetLatestTask records taskID as the latest task of who: in memory now, in the KV (next to
// the sessions' defaults, expiring with them) shortly after.
func (c *Client) SetLatestTask(_ context.Context, who, taskID string) error {
	if !validToken(taskID) {
		return fmt.Errorf("task id %q cannot be stored", taskID)
	}
	l, key := c.latest, latestKey(who)
	l.mu.Lock()
	if len(l.known) >= maxLatestInMemory {
		l.known = map[string]recorded{}
	}
	if _, seen := l.known[key]; !seen && l.keep > 0 {
		if prefix, _, ok := cutPrincipalKey(key); ok {
			l.fresh[prefix] = true
		}
	}
	l.known[key], l.pending[key] = recorded{id: taskID, at: time.Now()}, taskID
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return nil
}

// latestWriteEvery spaces the KV writes: a client calling a device a thousand times a second
// costs one write per key in this time, not a thousand.
const latestWriteEvery = 200 * time.Millisecond

// run writes pending ids to the KV until ctx ends.
func (l *latestTasks) run(ctx context.Context) {
	pause := time.NewTimer(0)
	defer pause.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		}
		l.write(ctx)
		pause.Reset(latestWriteEvery)
		select {
		case <-ctx.Done():
			return
		case <-pause.C:
		}
	}
}

// Flush writes the latest-task ids not yet in the KV: a gateway shutting down calls it
// before it closes its NATS connection, so that the next one finds them.
func (c *Client) Flush(ctx context.Context) { c.latest.write(ctx) }

// write puts the pending ids into the KV.
func (l *latestTasks) write(ctx context.Context) {
	l.writing.Lock()
	defer l.writing.Unlock()
	l.mu.Lock()
	batch, fresh, keep, trim := l.pending, l.fresh, l.keep, l.trim
	l.pending, l.fresh = map[string]string{}, map[string]bool{}
	l.mu.Unlock()
	defer l.trimFresh(ctx, fresh, keep, trim) // after the writes, which it counts
	for key, id := range batch {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		rev, err := l.kv.Put(wctx, key, []byte(id))
		cancel()
		if err != nil {
			l.warnUnstored(id, key, err)
			continue
		}
		l.mu.Lock()
		if r, ok := l.known[key]; ok && r.id == id { // not recorded again meanwhile
			r.rev = rev
			l.known[key] = r
		}
		l.mu.Unlock()
	}
}

// latestTrimWait bounds a trim of one principal's latest tasks.
const latestTrimWait = 5 * time.Second

// trimFresh trims the latest tasks of the principals whose prefixes are fresh to keep.
func (l *latestTasks) trimFresh(ctx context.Context, fresh map[string]bool, keep int, trim func(context.Context, string, int) (int, error)) {
	for prefix := range fresh {
		tctx, cancel := context.WithTimeout(ctx, latestTrimWait)
		_, err := trim(tctx, prefix+latestPart, keep)
		cancel()
		if err == nil {
			continue
		}
		if ok, repeats := l.untrimd.allow(); ok {
			l.log.Warn("a principal's latest tasks beyond their bound could not be dropped; its next new one tries again",
				"keys", prefix+latestPart+"*", "err", err, "repeats", repeats)
		}
	}
}

// warnUnstored logs that id could not be written under key, once a minute at most: the line
// says how many more were not stored since the last one (repeats).
func (l *latestTasks) warnUnstored(id, key string, err error) {
	ok, repeats := l.unstored.allow()
	if !ok {
		return
	}
	attrs := []any{"task", id, "err", sessionWriteErr("writing "+key, err)}
	if repeats > 0 {
		attrs = append(attrs, "repeats", repeats)
	}
	l.log.Warn("latest task not stored in NATS; other gateways will miss it", attrs...)
}
