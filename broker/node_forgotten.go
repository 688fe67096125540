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
	return nil
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
