package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
)

// grantCheck is how long a grant's delivery waits to hear that no one listens. NATS says so
// within a round trip; a caller that listens does not answer, so this is only how long the
// goroutine lives.
const grantCheck = 2 * time.Second

// answerLease answers a lease request. A grant goes as a request to the caller's inbox: if no
// one listens there any more (its gateway died while it waited, or its connection dropped),
// NATS says so at once (no responders), and the lease, which no one can use, is released
// rather than left to block the device until its idle expiry. Requests without an id (older
// gateways) are answered as before.
func (n *Node) answerLease(r micro.Request, req broker.AcquireRequest, a broker.LeaseAnswer) {
	if !a.OK || req.ID == "" || r.Reply() == "" {
		respond(r, a)
		return
	}
	delivered := n.silence.work.run(func(ctx context.Context) { // Stop ends it and waits for it
		data, err := json.Marshal(a)
		if err != nil {
			_ = r.Error("500", "lease answer not encodable: "+err.Error(), nil)
			return
		}
		ctx, cancel := context.WithTimeout(ctx, grantCheck)
		defer cancel()
		if _, err := n.cfg.NC.RequestMsgWithContext(ctx, &nats.Msg{Subject: r.Reply(), Data: data}); !errors.Is(err, nats.ErrNoResponders) {
			return // delivered, or at least someone listens, or the node stops
		}
		n.cfg.Log.Info("a lease was granted to a caller no longer listening; released", "serial", req.Serial, "holder", req.Holder.String())
		n.system.Root.Send(n.sched, actors.ReleaseLease{Req: broker.ReleaseRequest{V: broker.WireVersion, Serial: req.Serial, Request: req.ID, By: "node"},
			Reply: func(broker.LeaseAnswer) {}})
	})
	if !delivered { // the node stops: no one is left to release it, its stop revokes it
		respond(r, a)
	}
}
