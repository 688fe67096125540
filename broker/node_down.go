package broker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// followDowns listens for nodes saying they shut down (a node's Stop records its down event
// last, once its devices are offline and its leases revoked): such a node is not lost, and
// nothing is left to reap. The node is the subject's: a node may publish on its own only.
func (c *Client) followDowns(ctx context.Context) error {
	sub, err := c.nc.Subscribe(fmt.Sprintf(EventNodeT, "*", "down"), c.guard.Msg(func(m *nats.Msg) {
		if node := downNode(m.Subject); node != "" {
			if v := wireVersionOf(m.Data); newerWire(v) {
				c.newerNode(node, v) // it stopped all the same: its subject says so (liveness_version.go)
			}
			c.nodeStopped(node)
		}
	}))
	if err != nil {
		return fmt.Errorf("subscribe to nodes' down events: %w", err)
	}
	context.AfterFunc(ctx, func() { _ = sub.Unsubscribe() })
	return nil
}

// downNode is the node of a down event's subject, "" for another subject.
func downNode(subject string) string {
	node, ok := strings.CutPrefix(subject, Prefix+".events.node.")
	if !ok {
		return ""
	}
	node, ok = strings.CutSuffix(node, ".down")
	if !ok || !validToken(node) {
		return ""
	}
	return node
}

// nodeStopped marks a node that said it stopped: gone, not lost.
func (c *Client) nodeStopped(node string) {
	if !c.live.Stopped(node, time.Now()) {
		return
	}
	c.log.Info("node stopped (its down event): its devices are offline, not lost", "node", node) // not the node's own line
	c.opts.Metrics.nodeStopped(node)
}
