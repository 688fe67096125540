package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NodeForgotten is the node event `corral devices forget` records once it has removed a node
// stopped for good: a gateway that declared the node lost stops saying so (corral_node_lost),
// which otherwise paged (CorralNodeLost) until every gateway restarted.
const NodeForgotten = "forgotten"

// RecordNodeForgotten records in the event stream that node was forgotten, by whom. Only the
// admin's NATS user may publish it (PermissionsFor); a node may publish its own node events,
// and a gateway ignores this one of a node it hears.
func RecordNodeForgotten(ctx context.Context, js jetstream.JetStream, node, by string) error {
	ev, _ := json.Marshal(Event{V: WireVersion, Kind: "node", Node: node, What: NodeForgotten, Reason: "forgotten by " + by, At: time.Now()})
	if _, err := js.Publish(ctx, fmt.Sprintf(EventNodeT, node, NodeForgotten), ev); err != nil {
		return fmt.Errorf("record node %s forgotten in %s: %w", node, EventStream, err)
	}
	return nil
}

// followForgotten listens for nodes forgotten (RecordNodeForgotten): a node this client holds
// lost loses its series in the client's metrics, so that CorralNodeLost clears. A node it hears
// beat keeps them: that one is not gone.
func (c *Client) followForgotten(ctx context.Context) error {
	sub, err := c.nc.Subscribe(fmt.Sprintf(EventNodeT, "*", NodeForgotten), c.guard.Msg(func(m *nats.Msg) {
		node := forgottenNode(m.Subject)
		if node == "" {
			return
		}
		if slices.Contains(c.live.Alive(), node) {
			c.log.Warn("node forgotten while it beats; still shown", "node", node)
			return
		}
		c.log.Info("node forgotten (corral devices forget): no longer shown lost", "node", node)
		c.opts.Metrics.nodeForgotten(node)
	}))
	if err != nil {
		return fmt.Errorf("subscribe to nodes' forgotten events: %w", err)
	}
	context.AfterFunc(ctx, func() { _ = sub.Unsubscribe() })
	if c.opts.Metrics != nil {
		go c.recheckLostOnReconnect(ctx, reconnects(c.nc))
	}
	return nil
}

// The forgotten event is a plain message: a gateway cut off from NATS as the node was
// forgotten never gets it. So after each reconnection it asks the registry about each node it
// shows lost: one with no entry left (corral devices forget removes them all, then records
// the event) was forgotten meanwhile, and loses its series as on the event.

// recheckLostOnReconnect checks the nodes shown lost after each reconnection until ctx ends.
func (c *Client) recheckLostOnReconnect(ctx context.Context, reconnected chan nats.Status) {
	defer c.nc.RemoveStatusListener(reconnected)
	for {
		select {
		case <-ctx.Done():
			return
		case <-reconnected:
		}
		for !c.recheckLost(ctx) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(rewatchEvery): // JetStream not up yet after a server restart
			}
			if c.nc.IsClosed() {
				return
			}
		}
	}
}

// recheckLost drops the series of each node shown lost, not alive, whose registry entries are
// all gone. False if the registry could not be read: it is asked again.
func (c *Client) recheckLost(ctx context.Context) bool {
	for _, node := range c.opts.Metrics.lostShown() {
		if slices.Contains(c.live.Alive(), node) {
			continue
		}
		has, err := c.hasRegistryEntries(ctx, node)
		if err != nil {
			c.log.Warn("cannot tell whether a node shown lost was forgotten while this gateway was cut off from NATS; retrying",
				"node", node, "err", err)
			return false
		}
		if !has {
			c.log.Info("node forgotten while this gateway was cut off from NATS (its registry entries are gone): no longer shown lost", "node", node)
			c.opts.Metrics.nodeForgotten(node)
		}
	}
	return true
}

// hasRegistryEntries says whether node has any entry left in the registry, under the keys
// corral devices forget removes (RegistryKey).
func (c *Client) hasRegistryEntries(ctx context.Context, node string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	keys, err := c.stores.Registry.ListKeysFiltered(ctx, node+".>")
	if err != nil {
		return false, fmt.Errorf("list node %s's keys in %s: %w", node, RegistryBucket, err)
	}
	defer func() { _ = keys.Stop() }()
	for range keys.Keys() {
		return true, nil
	}
	if ctx.Err() != nil {
		return false, fmt.Errorf("list node %s's keys in %s: %w", node, RegistryBucket, ctx.Err())
	}
	return false, nil
}

// forgottenNode is the node of a forgotten event's subject, "" for another subject.
func forgottenNode(subject string) string {
	node, ok := strings.CutPrefix(subject, Prefix+".events.node.")
	if !ok {
		return ""
	}
	node, ok = strings.CutSuffix(node, "."+NodeForgotten)
	if !ok || !validToken(node) {
		return ""
	}
	return node
}
