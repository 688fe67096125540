package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// nodeLost is called when a node stops beating. A reaping client marks the node's devices
// offline, revokes their leases in KV and records the event once (deduplicated by id, as every
// gateway reaps). Updates use the entry's revision so that a node that is already back wins.
func (c *Client) nodeLost(node, boot string) {
	reason := fmt.Sprintf("node %s lost: no heartbeat for %s", node, c.live.lostAfter)
	c.log.Warn("node lost", "node", node, "boot", boot)
	c.opts.Metrics.nodeLost(node)
	if !c.opts.Reap {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.mu.RLock()
	var mine []cachedEntry
	for _, d := range c.devices {
		if d.Node == node && d.State != StateOffline {
			mine = append(mine, d)
		}
	}
	c.mu.RUnlock()
	for _, d := range mine {
		e := d.DeviceEntry
		e.State, e.Reason, e.Holder, e.Updated = StateOffline, reason, "", time.Now()
		b, _ := json.Marshal(e)
		if _, err := c.stores.Registry.Update(ctx, d.key, b, d.revision); err != nil {
			c.log.Debug("registry update skipped (changed meanwhile)", "serial", e.Serial, "err", err)
		} else {
			// The gateway whose update won tells the event stream, as a node tells its own changes.
			ev, _ := json.Marshal(Event{V: WireVersion, Kind: "device", Serial: e.Serial, Node: node, What: StateOffline,
				Reason: reason, Epoch: e.Epoch, At: e.Updated})
			msg := &nats.Msg{Subject: fmt.Sprintf(EventDevT, node, Token(e.Serial), StateOffline), Data: ev, Header: nats.Header{}}
			if _, err := c.stores.JS.PublishMsg(ctx, msg, jetstream.WithMsgID("lost-"+node+"-"+boot+"-"+Token(e.Serial))); err != nil {
				c.log.Warn("could not record a device going offline", "serial", e.Serial, "err", err)
			}
		}
		if err := c.stores.Leases.Delete(ctx, leaseKeyFor(d.key, e)); err != nil {
			c.log.Debug("lease delete", "serial", e.Serial, "err", err)
		}
	}
	ev, _ := json.Marshal(Event{V: WireVersion, Kind: "node", Node: node, What: "lost", Reason: reason, At: time.Now()})
	msg := &nats.Msg{Subject: fmt.Sprintf(EventNodeT, node, "lost"), Data: ev, Header: nats.Header{}}
	if _, err := c.stores.JS.PublishMsg(ctx, msg, jetstream.WithMsgID("lost-"+node+"-"+boot)); err != nil {
		c.log.Warn("could not record node loss", "node", node, "err", err)
	}
}
