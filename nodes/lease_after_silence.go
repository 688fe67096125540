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
// asked about, as a task is: granted if its caller still waits and the node heard of no loss
// since it came, refused if it was answered already, its gateway does not answer in time, or
// the node heard of its loss meanwhile. One from an older gateway, which names none, is refused
// while the held requests come (refuseFor), and taken as before after that.

// takeLease hands req to the scheduler, asking its caller first if it came as the node may
// just have been declared lost. Requests of one device go in their order of arrival.
func (n *Node) takeLease(r micro.Request, req broker.AcquireRequest) {
	acquire := func() {
		n.system.Root.Send(n.sched, actors.AcquireLease{Req: req, Reply: func(a broker.LeaseAnswer) { n.answerLease(r, req, a) }})
	}
	switch {
	case askable(req) && n.silence.mayHaveBeenLost():
		n.askThenTake(r, req, acquire)
	case !askable(req) && n.silence.heldThrough():
		n.refuseHeldLease(r, req, "its gateway cannot be asked whether its caller still waits")
	default:
		n.silence.leases.take(req.Serial, acquire) // at once, unless one before it is asked about
	}
}

// askThenTake asks whether req's caller still waits, on a goroutine of the node's (a round
// trip, at most callerCheck: not on the endpoint's), and grants it, in its turn, only if it
// does and the node heard of no loss meanwhile: the revoke of a loss heard after the question
// was sent would have come before the grant, leaving the lease to no one until its idle expiry.
func (n *Node) askThenTake(r micro.Request, req broker.AcquireRequest, acquire func()) {
	seen := n.silence.lossesHeard()
	place := n.silence.leases.hold(req.Serial)
	asked := n.silence.work.run(func(ctx context.Context) {
		waits, why := n.leaseCallerWaits(ctx, req)
		n.silence.leases.decide(req.Serial, place, func() {
			switch {
			case !waits:
				n.refuseHeldLease(r, req, why)
			case !n.silence.unlessLostSince(seen, acquire):
				n.refuseLostMeanwhile(r, req)
			}
		})
	})
	if !asked { // the node is stopping: its scheduler answers what is true
		n.silence.leases.decide(req.Serial, place, acquire)
	}
}

// askable says whether req's caller can be asked whether it still waits: its gateway answers
// per call (broker.ProbeAnswers), and req has an id to ask by.
func askable(req broker.AcquireRequest) bool {
	return req.ID != "" && ValidID(req.Probe) && broker.ProbeAnswers(req.Probe)
}

// leaseCallerWaits asks the gateway of req whether its caller still waits for the answer;
// why it is taken as gone when not.
func (n *Node) leaseCallerWaits(ctx context.Context, req broker.AcquireRequest) (waits bool, why string) {
	gone, err := n.callerLeft(ctx, req.Probe, broker.AcquireProbeID(req.ID))
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

// refuseLostMeanwhile answers req refused: its caller said it still waited, but the node heard
// of its loss after it asked, and has revoked its leases for it; the caller was most likely
// told the node was lost just after it answered.
func (n *Node) refuseLostMeanwhile(r micro.Request, req broker.AcquireRequest) {
	n.cfg.Log.Info("this node heard of its loss as a lease request's caller was asked whether it still waited; refused (its caller was most likely told so)",
		"serial", req.Serial, "holder", req.Holder.String())
	respond(r, broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeNodeLost, Error: fmt.Sprintf(
		"node %s was declared lost by the farm as this request's caller was asked whether it still waited (it had most likely been told so): "+
			"no lease of %s was granted and nothing is held. Call acquire_device again",
		n.cfg.ID, req.Serial)})
}
