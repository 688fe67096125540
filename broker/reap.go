package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// lostReason is the reason a reaping gateway writes into the registry entries of a lost
// node's devices; DeclaredLost recognises it.
func lostReason(node string, after time.Duration) string {
	return fmt.Sprintf("node %s lost: no heartbeat for %s", node, after)
}

// DeclaredLost says whether a registry entry is one a gateway wrote when it declared the
// entry's node lost. A node that could not hear the loss event (it was cut off from NATS)
// learns of its loss so when it is back, and does what the event would have made it do.
func DeclaredLost(e DeviceEntry) bool {
	return e.State == StateOffline && strings.HasPrefix(e.Reason, "node "+e.Node+" lost: ")
}

// nodeLost is called when a node stops beating. A reaping client marks the node's devices
// offline, revokes their leases in KV and records the event once (deduplicated by id, as every
// gateway reaps: loss_id.go). Updates use the entry's revision so that a node that is already
// back and wrote its entries wins; one back that has not written them yet (a node only silent
// writes nothing until it hears of its loss) is asked of the heartbeats before each write, so
// its devices are not written offline under it.
//
// Each write has its own deadline (reapWait): a write NATS holds (a server stopped a while)
// may still be applied when it answers again, and the loss event, which is how the node hears
// of it and shows its devices again, must not fail because an earlier write used up a
// deadline they shared. The event goes out whatever became of the device writes.
//
// It runs within the liveness tracker's context (handlerContext; its signature is the one
// NewLiveness takes): once this client stops, it writes no more, leaving the verdict to the
// other reaping gateways and to the node, which learns of its loss when it is back.
func (c *Client) nodeLost(node, boot string) {
	ctx := c.live.handlerContext()
	loss := lossID(node, boot, c.lastBeats.of(node)) // first: a beat of the node back changes it
	reason := lostReason(node, c.live.lostAfter)
	at := time.Now() // names the verdict: its entries' Updated, its event's header (loss_verdict.go)
	c.log.Warn("node lost", "node", node, "boot", boot)
	c.opts.Metrics.nodeLost(node)
	if !c.opts.Reap {
		return
	}
	c.mu.RLock()
	var mine []cachedEntry
	for _, d := range c.devices {
		if d.Node == node && d.State != StateOffline {
			mine = append(mine, d)
		}
	}
	c.mu.RUnlock()
	left := 0
	for _, d := range mine {
		if ctx.Err() != nil {
			c.log.Info("loss verdict left unfinished: this gateway is stopping", "node", node)
			return
		}
		e := d.DeviceEntry
		e.State, e.Reason, e.Holder, e.Updated = StateOffline, reason, "", at
		b, _ := json.Marshal(e)
		if c.live.back(node) {
			left++
		} else if err := reapWrite(ctx, func(ctx context.Context) error {
			_, err := c.stores.Registry.Update(ctx, d.key, b, d.revision)
			return err
		}); errors.Is(err, context.DeadlineExceeded) {
			c.log.Warn("registry update of a lost node's device unanswered in time; NATS may still apply it", "serial", e.Serial, "err", err)
		} else if err != nil {
			c.log.Debug("registry update skipped (changed meanwhile)", "serial", e.Serial, "err", err)
		} else {
			// The gateway whose update won tells the event stream, as a node tells its own changes.
			// The node, seeing the entry, may tell it first: the same event, kept once (loss_id.go).
			ev, id := LostDeviceEvent(e)
			data, _ := json.Marshal(ev)
			msg := &nats.Msg{Subject: fmt.Sprintf(EventDevT, node, Token(e.Serial), StateOffline), Data: data, Header: nats.Header{}}
			if err := reapWrite(ctx, func(ctx context.Context) error {
				_, err := c.stores.JS.PublishMsg(ctx, msg, jetstream.WithMsgID(id))
				return err
			}); err != nil {
				c.log.Warn("could not record a device going offline", "serial", e.Serial, "err", err)
			}
		}
		if err := reapWrite(ctx, func(ctx context.Context) error { return c.stores.Leases.Delete(ctx, leaseKeyFor(d.key, e)) }); err != nil {
			c.log.Debug("lease delete", "serial", e.Serial, "err", err)
		}
	}
	if left > 0 {
		// Its leases are revoked all the same: its callers were told it was lost, and the node,
		// told by the event below, revokes them too.
		c.log.Info("node back since it was declared lost: its devices' entries left as it wrote them", "node", node, "devices", left)
	}
	if ctx.Err() != nil {
		c.log.Info("loss verdict left unfinished: this gateway is stopping", "node", node)
		return
	}
	ev, _ := json.Marshal(Event{V: WireVersion, Kind: "node", Node: node, What: "lost", Reason: reason, At: time.Now()})
	msg := &nats.Msg{Subject: fmt.Sprintf(EventNodeT, node, "lost"), Data: ev, Header: nats.Header{LossVerdictHeader: {verdictName(at)}}}
	if err := reapWrite(ctx, func(ctx context.Context) error {
		_, err := c.stores.JS.PublishMsg(ctx, msg, jetstream.WithMsgID(loss))
		return err
	}); err != nil {
		c.log.Warn("could not record node loss", "node", node, "err", err)
	}
}

// reapWait bounds each write of a loss verdict. While NATS stalls the writes give up one after
// another until it answers again, so a verdict takes about as long as the stall (and at most
// reapWait more), however many devices the node has.
const reapWait = 5 * time.Second

// reapWrite runs one write of a loss verdict with a deadline of its own, within ctx.
func reapWrite(ctx context.Context, write func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, reapWait)
	defer cancel()
	return write(ctx)
}
