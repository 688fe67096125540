package actors

import (
	"fmt"
	"time"

	"github.com/corral-farm/corral/broker"
)

// Drain takes the node's devices out of service without stopping what runs: the scheduler
// refuses new leases and new tasks (code draining) and answers the callers queued for a lease
// or a free device; running tasks finish, and lease holders keep their leases, and their tasks
// run, until they release them or they expire. Undrain takes new work again. The drain lives
// as long as the scheduler: a restarted node starts undrained.
type Drain struct {
	Req   broker.DrainRequest
	Reply func(broker.DrainAnswer)
}

// maxDrainBy bounds who a drain says asked for it.
const maxDrainBy = 128

// drainState is the scheduler's drain, zero when the node is not draining.
type drainState struct {
	by    string
	since time.Time
}

func (d drainState) on() bool { return !d.since.IsZero() }

// show writes the drain into a registry entry: since when and by whom, for the console and
// operators (a drain's by is an operator's name, never a credential).
func (d drainState) show(e *broker.DeviceEntry) {
	e.Draining, e.DrainingSince, e.DrainingBy = d.on(), d.since, d.by
}

// shown reports whether e shows this drain already.
func (d drainState) shown(e broker.DeviceEntry) bool {
	return e.Draining == d.on() && e.DrainingSince.Equal(d.since) && e.DrainingBy == d.by
}

// drain starts, ends or reports the node's drain.
func (s *Scheduler) drain(req broker.DrainRequest) broker.DrainAnswer {
	by := req.By
	if by == "" {
		by = "an operator"
	}
	if len(by) > maxDrainBy { // every device's registry entry carries it while the node drains
		return broker.DrainAnswer{V: broker.WireVersion, Node: s.cfg.Node, Code: broker.CodeBadInput,
			Error: fmt.Sprintf("drain by is %d bytes long; at most %d: name the operator shortly (corral drain --by)", len(by), maxDrainBy)}
	}
	refused := 0
	switch req.Action {
	case broker.DrainStart:
		if s.drained.on() {
			break
		}
		s.drained = drainState{by: by, since: time.Now()}
		msg := s.drainingText()
		for _, sl := range s.slots {
			// Only the holder's own tasks may still start: everyone else waits in vain.
			holder := func(w *waiter) bool {
				return w.task != nil && w.task.req.Lease != "" && sl.lease != nil && w.task.req.Lease == sl.lease.Handle
			}
			before := len(sl.queue)
			s.failQueue(sl, func(w *waiter) bool { return !holder(w) }, broker.OutcomeRefused, broker.CodeDraining, msg)
			refused += before - len(sl.queue)
			s.show(sl)
		}
		s.cfg.Log.Info("node draining", "by", by, "refused", refused)
		s.cfg.Mirror.Event(broker.Event{V: broker.WireVersion, Kind: "node", Node: s.cfg.Node, What: "draining",
			Reason: "drained by " + by, At: time.Now()})
	case broker.DrainUndo:
		if !s.drained.on() {
			break
		}
		s.drained = drainState{}
		for _, sl := range s.slots {
			s.show(sl)
			s.dispatch(sl)
		}
		s.cfg.Log.Info("node undrained", "by", by)
		s.cfg.Mirror.Event(broker.Event{V: broker.WireVersion, Kind: "node", Node: s.cfg.Node, What: "undrained",
			Reason: "undrained by " + by, At: time.Now()})
	case broker.DrainStatus:
	default:
		return broker.DrainAnswer{V: broker.WireVersion, Node: s.cfg.Node, Code: broker.CodeBadInput,
			Error: fmt.Sprintf("drain action %q: use %q, %q or %q", req.Action, broker.DrainStart, broker.DrainUndo, broker.DrainStatus)}
	}
	ans := broker.DrainAnswer{V: broker.WireVersion, Node: s.cfg.Node, Draining: s.drained.on(), By: s.drained.by,
		Since: s.drained.since, Devices: len(s.slots), Refused: refused}
	for _, sl := range s.slots {
		if sl.running != nil { // a stopping node's offline device may still have its task
			ans.Running++
		}
		if sl.health == broker.StateOffline {
			ans.Devices--
			continue
		}
		if sl.lease != nil {
			ans.Leases++
		}
		ans.Queued += len(sl.queue)
	}
	return ans
}

// drainingText is the refusal a caller gets from a draining node.
func (s *Scheduler) drainingText() string {
	return fmt.Sprintf("node %s is draining: it takes no new leases or tasks; pick a device on another node from list_available_devices", s.cfg.Node)
}

// refuseDraining refuses t when the node is draining and t is not a lease holder's task.
func (s *Scheduler) refuseDraining(t *task) bool {
	if !s.drained.on() || t.req.Lease != "" {
		return false
	}
	s.refuse(t, broker.CodeDraining, s.drainingText(), nil)
	return true
}

// shownState is the state and reason the registry shows for a device: a free device of a
// draining node is draining; a leased or busy one keeps its state, with the drain as reason.
func (s *Scheduler) shownState(sl *slot) (state, reason string) {
	state, reason = sl.state(), sl.reason
	if s.drained.on() && sl.health == broker.StateOnline {
		reason = "node " + s.cfg.Node + " is draining"
		if state == broker.StateOnline {
			state = broker.StateDraining
		}
	}
	if sl.halt != "" && sl.health != broker.StateOffline { // taking tasks, but not available (halt.go)
		state, reason = broker.StateUnhealthy, sl.halt
	}
	return state, reason
}
