package nodes

import (
	"github.com/nats-io/nats.go/micro"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
)

// drainHandler serves corral.v1.node.<id>.drain (`corral drain NODE`, or
// `nats req corral.v1.node.<id>.drain '{"action":"status"}'`): the scheduler drains, undrains or
// reports, and mirrors the drain to the registry (devices show draining) and the event stream.
func (n *Node) drainHandler(r micro.Request) {
	var req broker.DrainRequest
	if decode(r, &req) {
		n.system.Root.Send(n.sched, actors.Drain{Req: req, Reply: func(a broker.DrainAnswer) { respond(r, a) }})
	}
}
