package actors

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/corral-farm/corral/broker"
)

// A halted device is one whose machine emergency_stop stopped and holds so until it is
// recovered (an arm rig until arm_recover). It still takes tasks: its driver refuses gestures
// with the halt's words, and the recovery must get through. But it is not available: it shows
// unhealthy with the halt's reason, so free lists, acquire_device and the metrics leave it
// out. After each task that succeeds on it, its health check says whether it was recovered.

// haltCheck asks a device actor whether its halted device was recovered.
type haltCheck struct{}

// haltChecked brings the answer of a haltCheck: nil when the device takes work again.
type haltChecked struct {
	serial string
	err    error
}

// checkHalt runs the device's health check off the actor's goroutine for the scheduler.
func (a *deviceActor) checkHalt(ctx actor.Context) {
	parent, root := ctx.Parent(), ctx.ActorSystem().Root
	dev, timeout := a.dev, a.grace*10
	go func() {
		hctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		root.Send(parent, haltChecked{serial: dev.Info().Serial, err: dev.Health(hctx)})
	}()
}

// setHalted shows a device halted (reason set) or no longer so.
func (s *Scheduler) setHalted(m SetHalted) {
	sl, ok := s.slots[m.Serial]
	if !ok || sl.health == broker.StateOffline || sl.halt == m.Reason {
		return
	}
	sl.halt = m.Reason
	if m.Reason != "" {
		s.cfg.Log.Warn("device halted", "serial", m.Serial, "node", s.cfg.Node, "reason", m.Reason)
	}
	s.show(sl)
}

// afterHaltedTask asks a halted device's actor, after a task succeeded on it, whether that
// task recovered it.
func (s *Scheduler) afterHaltedTask(sl *slot, res broker.TaskResult) {
	if sl.halt != "" && res.Outcome == broker.OutcomeSucceeded && sl.pid != nil {
		s.root.Send(sl.pid, haltCheck{})
	}
}

// haltChecked ends a halt once the device's health check passes.
func (s *Scheduler) haltChecked(m haltChecked) {
	sl, ok := s.slots[m.serial]
	if !ok || sl.halt == "" || m.err != nil {
		return
	}
	s.cfg.Log.Info("device recovered from its halt", "serial", m.serial, "node", s.cfg.Node, "was", sl.halt)
	sl.halt = ""
	s.show(sl)
}
