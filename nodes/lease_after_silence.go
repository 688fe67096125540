package nodes

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/micro"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
)

// A lease request that comes as the node may just have been declared lost (silence.go) may
// have waited in NATS while its caller was told so: granted, the lease would be held by no one
// until its idle expiry. One whose gateway names a probe (broker.AcquireRequest.Probe) is
// asked about, as a task is: granted if its caller still waits, refused if it was answered
// already or its gateway does not answer in time. One from an older gateway, which names none,
// is refused while the held requests come (refuseFor), and taken as before after that.

// takeLease hands req to the scheduler, asking its caller first if it came as the node may
// just have been declared lost.
func (n *Node) takeLease(r micro.Request, req broker.AcquireRequest) {
	acquire := func() {
		n.system.Root.Send(n.sched, actors.AcquireLease{Req: req, Reply: func(a broker.LeaseAnswer) { n.answerLease(r, req, a) }})
	}
	switch {
	case askable(req) && n.silence.mayHaveBeenLost():
		go func() { // a round trip, at most callerCheck: not on the endpoint's goroutine
			if waits, why := n.leaseCallerWaits(req); !waits {
				n.refuseHeldLease(r, req, why)
				return
			}
			acquire()
		}()
	case !askable(req) && n.silence.heldThrough():
		n.refuseHeldLease(r, req, "its gateway cannot be asked whether its caller still waits")
	default:
		acquire()
	}
}

// askable says whether req's caller can be asked whether it still waits: its gateway answers
// per call (broker.ProbeAnswers), and req has an id to ask by.
func askable(req broker.AcquireRequest) bool {
	return req.ID != "" && ValidID(req.Probe) && broker.ProbeAnswers(req.Probe)
}

// leaseCallerWaits asks the gateway of req whether its caller still waits for the answer;
// why it is taken as gone when not.
func (n *Node) leaseCallerWaits(req broker.AcquireRequest) (waits bool, why string) {
	gone, err := n.callerLeft(context.Background(), req.Probe, broker.AcquireProbeID(req.ID))
	switch {
	case err != nil:
		return false, fmt.Sprintf("its gateway did not say whether its caller still waits (%v)", err)
	case gone:
		return false, "its gateway answered its caller already"
	}
	return true, ""
}

// refuseHeldLease answers req refused: it came as the node may just have been declared lost,
// and its caller may have been told so and gone (why: what says it may). A lease granted to no
// one would hold the device until its idle expiry.
func (n *Node) refuseHeldLease(r micro.Request, req broker.AcquireRequest, why string) {
	n.cfg.Log.Info("a lease request came as this node may just have been declared lost; refused (its caller may have been told so)",
		"serial", req.Serial, "holder", req.Holder.String(), "why", why)
	respond(r, broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeNodeLost, Error: fmt.Sprintf(
		"node %s was silent (its process stopped, or its connection to NATS stalled) long enough for the farm to declare it lost, "+
			"and this request, held meanwhile, may have been answered so already: no lease of %s was granted and nothing is held. Call acquire_device again",
		n.cfg.ID, req.Serial)})
}
