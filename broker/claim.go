package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A node id is claimed exclusively: a node starting puts a create-only key <id> into the
// corral_nodes bucket and keeps it alive every HeartbeatInterval; the bucket's entries expire
// after claimTTL without a refresh. A second node with the same id finds the key and refuses to
// start (two schedulers for the same devices would each grant leases the other fences). A node
// that stops cleanly deletes its key, so a successor starts at once; one that dies leaves it to
// expire after claimTTL, when the gateways declare it lost. One that was only silent that long
// (stopped, cut off) and returns takes its expired key again and goes on serving.

// claimTTL is how long a claim outlives its node's last refresh: the time after which
// gateways declare a silent node lost.
const claimTTL = LostAfter

// ErrNodeIDInUse reports a node id claimed by a running node.
var ErrNodeIDInUse = errors.New("node id in use")

// claimRecord is the value of a claim: who holds the id.
type claimRecord struct {
	Node  string    `json:"node"`
	Boot  string    `json:"boot"`
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
}

// NodeClaim is a node id held by this process.
type NodeClaim struct {
	kv   jetstream.KeyValue
	node string
	boot string
	log  *slog.Logger

	cancel context.CancelFunc
	done   chan struct{}
	lost   chan struct{}

	mu  sync.Mutex
	rev uint64

	remindEvery time.Duration // (under mu: tests shorten it)

	// A run of failed refreshes, logged once as it starts, then every remindEvery (keepAlive's
	// goroutine alone uses them).
	failingSince, remindedAt time.Time
	failures                 int
}

// ClaimNode claims a node id for this process, or fails with ErrNodeIDInUse naming who holds
// it. A claim left by a process of this host that is no longer running is waited out (at most
// claimTTL and a grace) and then taken: a node restarted right after it was killed starts.
// The claim is kept alive until Release; Lost is closed if it is taken over meanwhile (this
// process was silent for longer than claimTTL and another node took the id). A claim that
// merely expired while this process was silent is taken again (reclaim).
// It uses nc alone (the bucket must exist: EnsureStores), so that the claim can outlive the
// connection of the node it guards.
func ClaimNode(ctx context.Context, nc *nats.Conn, node, boot string, log *slog.Logger) (*NodeClaim, error) {
	return claimNode(ctx, nc, node, boot, log, nil)
}

// claimNode is ClaimNode refreshing on every tick (every HeartbeatInterval if tick is nil):
// tests tick by hand to stand for a node that falls silent.
func claimNode(ctx context.Context, nc *nats.Conn, node, boot string, log *slog.Logger, tick <-chan time.Time) (*NodeClaim, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("claim node id %s: %w", node, err)
	}
	kv, err := js.KeyValue(ctx, NodeBucket)
	if err != nil {
		return nil, fmt.Errorf("claim node id %s: bucket %s: %w", node, NodeBucket, err)
	}
	host, _ := os.Hostname()
	data, _ := json.Marshal(claimRecord{Node: node, Boot: boot, Host: host, PID: os.Getpid(), Since: time.Now().UTC()})
	rev, err := createClaim(ctx, nc, kv, node, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		rev, err = claimAfterDeadHolder(ctx, nc, kv, node, data, host, log)
	}
	if err != nil && (errors.Is(err, ErrNodeIDInUse) || ctx.Err() != nil) {
		return nil, err
	}
	var refused *RefusedError
	if errors.As(err, &refused) {
		return nil, fmt.Errorf("claim node id %s in %s: %w", node, NodeBucket, err)
	}
	if StorageShort(err) { // not a permission: the NATS server's JetStream storage is full
		return nil, fmt.Errorf("claim node id %s in %s: %w (the NATS server's JetStream storage is full: free space on its data disk, then start again)",
			node, NodeBucket, err)
	}
	if err != nil {
		return nil, fmt.Errorf("claim node id %s in %s: %w (may this NATS user write $KV.%s.%s?)", node, NodeBucket, err, NodeBucket, node)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &NodeClaim{kv: kv, node: node, boot: boot, log: log, cancel: cancel, done: make(chan struct{}), lost: make(chan struct{}), rev: rev,
		remindEvery: claimRemindEvery}
	t := time.NewTicker(HeartbeatInterval)
	if tick == nil {
		tick = t.C
	}
	go func() {
		defer t.Stop()
		c.keepAlive(rctx, data, tick)
	}()
	return c, nil
}

// createClaim creates the claim's key. NATS refuses a user another node's key (another node's
// context, or another role's) by an asynchronous error while the write waits for its timeout:
// the refusal ends the write at once instead, and is the error.
func createClaim(ctx context.Context, nc *nats.Conn, kv jetstream.KeyValue, node string, data []byte) (uint64, error) {
	key := "$KV." + NodeBucket + "." + node
	wctx, stop := watchRefusalOf(ctx, nc, func(subject string) bool { return subject == key })
	defer stop()
	rev, err := kv.Create(wctx, node, data)
	if r, ok := context.Cause(wctx).(*RefusedError); ok && err != nil {
		return 0, r
	}
	return rev, err
}

// claimAfterDeadHolder takes a node id whose claim names a process of this host that is no
// longer running (a node restarted right after a crash or SIGKILL): it waits for the claim to
// expire, at most claimTTL and a grace, and creates it again. Waiting, rather than refusing with
// "retry in 2.5 s", lets a supervisor's immediate restart succeed; it cannot take a live node's
// id, since it only creates a key that is gone, and a claim refreshed meanwhile (a live holder
// after all: another host under the same name, a reused PID) is refused at once. A claim of a
// live process, or of another host, is refused at once (ErrNodeIDInUse).
func claimAfterDeadHolder(ctx context.Context, nc *nats.Conn, kv jetstream.KeyValue, node string, data []byte, host string, log *slog.Logger) (uint64, error) {
	deadline := time.Now().Add(claimTTL + claimExpiryGrace)
	var waited *claimRecord // the dead holder's claim, once found
	var seen uint64         // and its revision
	for {
		e, err := kv.Get(ctx, node)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			rev, err := createClaim(ctx, nc, kv, node, data)
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // another process created it first: whose is it?
			}
			if err == nil && waited != nil {
				log.Warn("node id taken once the claim of its last holder, no longer running, expired",
					"node", node, "last_pid", waited.PID, "last_boot", waited.Boot, "host", host)
			}
			return rev, err
		}
		if err != nil {
			return 0, inUse(node, "another process")
		}
		var r claimRecord
		if json.Unmarshal(e.Value(), &r) != nil {
			return 0, inUse(node, "another process")
		}
		if !r.deadOn(host) || (waited != nil && e.Revision() != seen) {
			return 0, inUse(node, r.holder())
		}
		if waited == nil {
			waited, seen = &r, e.Revision()
			log.Warn("node id held by a process of this host that is no longer running; waiting for its claim to expire",
				"node", node, "pid", r.PID, "boot", r.Boot, "wait_at_most", claimTTL+claimExpiryGrace)
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("node id %q is held by process %d on %s, which is no longer running, but its claim did not "+
				"expire within %s: %w; retry in a few seconds", node, r.PID, r.Host, claimTTL+claimExpiryGrace, ErrNodeIDInUse)
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("claim node id %s: stopped while waiting for the claim of process %d, no longer running, to expire: %w",
				node, r.PID, context.Cause(ctx))
		case <-time.After(claimPoll):
		}
	}
}

// claimExpiryGrace is how much later than claimTTL a dead holder's claim may expire (the
// server's expiry timer on a loaded machine); claimPoll how often the wait looks.
const (
	claimExpiryGrace = time.Second
	claimPoll        = 100 * time.Millisecond
)

// deadOn says whether the claim's holder was a process of host that no longer exists. Only a
// process that is gone or a zombie (ended, not yet reaped) counts: one of another user (EPERM)
// is alive, and where signal 0 is not supported nothing is known, so the claim is taken as a
// live one.
func (r claimRecord) deadOn(host string) bool {
	if host == "" || r.Host != host || r.PID <= 0 || r.PID == os.Getpid() {
		return false
	}
	p, err := os.FindProcess(r.PID)
	if err != nil {
		return false
	}
	return errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone) || zombie(r.PID)
}

// holder names the claim's holder for a refusal.
func (r claimRecord) holder() string {
	return fmt.Sprintf("process %d on %s (boot %s, since %s)", r.PID, r.Host, r.Boot, r.Since.Local().Format(time.DateTime))
}

// inUse refuses a node id that who holds, saying what to do.
func inUse(node, who string) error {
	return fmt.Errorf("node id %q is held by a running node, %s: %w; two nodes with one id would split its devices' calls "+
		"between two schedulers. Give this node another --node-id, or stop the other one first (its id is free as soon as it "+
		"stops cleanly, or %s after it dies, when the farm declares it lost)", node, who, ErrNodeIDInUse, claimTTL)
}

// keepAlive refreshes the claim every HeartbeatInterval until ctx ends.
func (c *NodeClaim) keepAlive(ctx context.Context, data []byte, tick <-chan time.Time) {
	defer close(c.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
		c.mu.Lock()
		rev := c.rev
		c.mu.Unlock()
		wctx, cancel := context.WithTimeout(ctx, claimRefreshWait)
		next, err := c.kv.Update(wctx, c.node, data, rev)
		if err != nil && wrongRevision(err) {
			next, err = c.reclaim(wctx, data)
		}
		cancel()
		switch {
		case err == nil:
			c.mu.Lock()
			c.rev = next
			c.mu.Unlock()
			c.refreshed()
		case errors.Is(err, errTakenOver):
			c.log.Error("node id taken over: this node was silent for longer than the farm waits and another node "+
				"with the same id started; stop this one", "node", c.node, "err", err)
			close(c.lost)
			return
		case ctx.Err() == nil:
			c.refreshFailed(err)
		}
	}
}

// claimRefreshWait bounds a refresh: a slow link is not a silence (docs/operations.md: a round
// trip back within 2 s counts as an answer), and a refresh that waited only HeartbeatInterval
// never came back over one, so its claim lapsed. Ticks that come meanwhile are dropped. An
// update that timed out but was written leaves the key at a revision this process did not
// see: the next refresh finds its own boot there and adopts it (reclaim).
const claimRefreshWait = 2 * time.Second

// claimRemindEvery is how often a claim refresh that keeps failing is logged again: the first
// failure is logged, then a reminder at most this often, not one line a refresh.
const claimRemindEvery = time.Minute

// refreshFailed logs a failed refresh: the first of a run of failures, then a reminder at
// most every claimRemindEvery.
func (c *NodeClaim) refreshFailed(err error) {
	now := time.Now()
	c.mu.Lock()
	remindEvery := c.remindEvery
	c.mu.Unlock()
	c.failures++
	switch {
	case c.failingSince.IsZero():
		c.failingSince, c.remindedAt = now, now
		c.log.Warn("node id claim not refreshed; retrying every heartbeat, quietly until it works again "+
			refreshHint(err), "node", c.node, "err", err)
	case now.Sub(c.remindedAt) >= remindEvery:
		c.remindedAt = now
		c.log.Warn("node id claim still not refreshed; retrying", "node", c.node, "failing_for", now.Sub(c.failingSince).Round(time.Second),
			"failures", c.failures, "err", err)
	}
}

// refreshHint says where to look for a refresh that failed with err: a timeout is the link or
// the server, not its disk.
func refreshHint(err error) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
		return fmt.Sprintf("(no answer within %s: check the link to NATS and the NATS server's load)", claimRefreshWait)
	}
	return "(if NATS takes no writes, check its data disk: df on the NATS server)"
}

// refreshed ends a run of failed refreshes, saying so once.
func (c *NodeClaim) refreshed() {
	if c.failingSince.IsZero() {
		return
	}
	c.log.Info("node id claim refreshed again", "node", c.node, "failed_for", time.Since(c.failingSince).Round(time.Second),
		"failures", c.failures)
	c.failingSince, c.failures = time.Time{}, 0
}

// errTakenOver reports a claim another boot of the node id holds now.
var errTakenOver = errors.New("node id claimed by another boot")

// wrongRevision says whether a claim's write failed because its key is not at the revision
// this process last wrote.
func wrongRevision(err error) bool {
	var api *jetstream.APIError
	return errors.Is(err, jetstream.ErrKeyExists) || errors.As(err, &api) && api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

// reclaim finds out why the claim is not where this process left it. A key that is gone
// expired while this process was silent (stopped, swapped out, cut off) for longer than
// claimTTL: the farm declared the node lost and the node revokes its leases when it hears so
// (or, cut off from NATS then, finds so in the registry once back: nodes/connection.go), but
// no other node took the id, so this one takes it again and goes on serving, fenced by
// its new epochs. A key holding this boot's claim at another revision (a write whose answer
// was lost) is adopted. Only a key another boot holds is a takeover. Create is atomic: of a
// returning node and a new one with the same id, whoever creates the key first keeps it.
func (c *NodeClaim) reclaim(ctx context.Context, data []byte) (uint64, error) {
	for range 2 {
		e, err := c.kv.Get(ctx, c.node)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			rev, err := c.kv.Create(ctx, c.node, data)
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // another process created it first: whose is it?
			}
			if err == nil {
				c.log.Warn("node id claimed again: its claim expired while this node or the NATS server was silent for "+
					"longer than the farm waits (a gateway that heard the others but not this node declared it lost, and "+
					"the node then revokes its leases when it hears so or reads so in the registry once back on NATS; a "+
					"stalled NATS server loses no node); no other node took the id, so this one goes on serving",
					"node", c.node, "silent_over", claimTTL)
			}
			return rev, err
		}
		if err != nil {
			return 0, err
		}
		var r claimRecord
		if json.Unmarshal(e.Value(), &r) == nil && r.Boot == c.boot {
			return e.Revision(), nil
		}
		return 0, fmt.Errorf("%w: boot %s, process %d on %s", errTakenOver, r.Boot, r.PID, r.Host)
	}
	return 0, fmt.Errorf("node id %s: its claim was created and removed again while this node took it back; retrying", c.node)
}

// Lost is closed when another node took this id over.
func (c *NodeClaim) Lost() <-chan struct{} { return c.lost }

// Release gives the id back (a successor may start at once).
func (c *NodeClaim) Release(ctx context.Context) {
	c.cancel()
	<-c.done
	select {
	case <-c.lost:
		return // not ours any more
	default:
	}
	c.mu.Lock()
	rev := c.rev
	c.mu.Unlock()
	if err := c.kv.Delete(ctx, c.node, jetstream.LastRevision(rev)); err != nil {
		c.log.Warn("node id claim not released; the next node with this id waits until it expires", "node", c.node, "wait", claimTTL, "err", err)
	}
}
