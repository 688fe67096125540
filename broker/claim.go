package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A node id is claimed exclusively: a node starting puts a create-only key <id> into the
// corral_nodes bucket and keeps it alive every HeartbeatInterval; the bucket's entries expire
// after claimTTL without a refresh. A second node with the same id finds the key and refuses to
// start (two schedulers for the same devices would each grant leases the other fences). A node
// that stops cleanly deletes its key, so a successor starts at once; one that dies leaves it to
// expire after claimTTL, when the gateways declare it lost.

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
	log  *slog.Logger

	cancel context.CancelFunc
	done   chan struct{}
	lost   chan struct{}

	mu  sync.Mutex
	rev uint64
}

// ClaimNode claims a node id for this process, or fails with ErrNodeIDInUse naming who holds
// it. The claim is kept alive until Release; Lost is closed if it is taken over meanwhile
// (this process was silent for longer than claimTTL and another node took the id).
// It uses nc alone (the bucket must exist: EnsureStores), so that the claim can outlive the
// connection of the node it guards.
func ClaimNode(ctx context.Context, nc *nats.Conn, node, boot string, log *slog.Logger) (*NodeClaim, error) {
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
	rev, err := kv.Create(ctx, node, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return nil, inUse(ctx, kv, node)
	}
	if err != nil {
		return nil, fmt.Errorf("claim node id %s in %s: %w (may this NATS user write $KV.%s.%s?)", node, NodeBucket, err, NodeBucket, node)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &NodeClaim{kv: kv, node: node, log: log, cancel: cancel, done: make(chan struct{}), lost: make(chan struct{}), rev: rev}
	go c.keepAlive(rctx, data)
	return c, nil
}

// inUse says who holds a node id, and what to do.
func inUse(ctx context.Context, kv jetstream.KeyValue, node string) error {
	who := "another process"
	if e, err := kv.Get(ctx, node); err == nil {
		var r claimRecord
		if json.Unmarshal(e.Value(), &r) == nil {
			who = fmt.Sprintf("process %d on %s (boot %s, since %s)", r.PID, r.Host, r.Boot, r.Since.Local().Format(time.DateTime))
		}
	}
	return fmt.Errorf("node id %q is held by a running node, %s: %w; two nodes with one id would split its devices' calls "+
		"between two schedulers. Give this node another --node-id, or stop the other one first (its id is free as soon as it "+
		"stops cleanly, or %s after it dies, when the farm declares it lost)", node, who, ErrNodeIDInUse, claimTTL)
}

// keepAlive refreshes the claim every HeartbeatInterval until ctx ends.
func (c *NodeClaim) keepAlive(ctx context.Context, data []byte) {
	defer close(c.done)
	t := time.NewTicker(HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c.mu.Lock()
		rev := c.rev
		c.mu.Unlock()
		wctx, cancel := context.WithTimeout(ctx, HeartbeatInterval)
		next, err := c.kv.Update(wctx, c.node, data, rev)
		cancel()
		var api *jetstream.APIError
		switch {
		case err == nil:
			c.mu.Lock()
			c.rev = next
			c.mu.Unlock()
		case errors.Is(err, jetstream.ErrKeyExists) || errors.As(err, &api) && api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence:
			c.log.Error("node id taken over: this node was silent for longer than the farm waits and another node "+
				"with the same id started; stop this one", "node", c.node)
			close(c.lost)
			return
		case ctx.Err() == nil:
			c.log.Warn("node id claim not refreshed; retrying", "node", c.node, "err", err)
		}
	}
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
