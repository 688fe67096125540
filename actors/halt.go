package actors

import (
	"context"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/corral-farm/corral/broker"
)

// A halted device is one whose machine stopped and holds so until a person recovers it: an
// arm rig emergency_stop halted, or whose controller raised an alarm (a tripped limit), until
// arm_recover. It still takes tasks, whatever its health checks say (they fail while it is
// halted, and its actor may have restarted meanwhile): its driver refuses gestures with the
// halt's words, and the recovery, and the looks a person judges it by, must get through. But
// it is not available: it shows unhealthy with the halt's reason, so free lists,
// acquire_device and the metrics leave it out. It is halted no longer when its driver says so
// (HaltReporter, SetHalted), or when its health check passes after a task that succeeded.

// HaltReporter is a Device that tells when its machine halts by itself (an arm rig's
// controller in alarm) or is halted, and when it is recovered: the scheduler hands it report
// when the device is added, and the device calls report with the halt's reason at every
// change, "" once it is recovered, until it leaves. ReportHalt must return at once.
type HaltReporter interface {
	ReportHalt(report func(reason string))
}

// haltCheck asks a device actor whether its halted device was recovered.
type haltCheck struct{}

// haltChecked brings the answer of a haltCheck: nil when the device takes work again.
type haltChecked struct {
	serial string
	err    error
}

// deviceHalted is a HaltReporter's report; dev tells a report of a driver since replaced.
type deviceHalted struct {
	dev    Device
	reason string
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

// watchHalts hands a new device that reports its halts where to report them.
func (s *Scheduler) watchHalts(dev Device) {
	if h, ok := dev.(HaltReporter); ok {
		self, root := s.self, s.root
		h.ReportHalt(func(reason string) { root.Send(self, deviceHalted{dev: dev, reason: reason}) })
	}
}

// deviceHalted takes a HaltReporter's report, unless its device was replaced since.
func (s *Scheduler) deviceHalted(m deviceHalted) {
	serial := m.dev.Info().Serial
	if sl, ok := s.slots[serial]; ok && sl.dev == m.dev {
		s.setHalted(SetHalted{Serial: serial, Reason: m.reason})
	}
}

// setHalted shows a device halted (reason set) or no longer so.
func (s *Scheduler) setHalted(m SetHalted) {
	sl, ok := s.slots[m.Serial]
	if !ok || sl.health == broker.StateOffline || sl.halt == m.Reason {
		return
	}
	was := sl.halt
	sl.halt = m.Reason
	if m.Reason != "" {
		s.cfg.Log.Warn("device halted", "serial", m.Serial, "reason", m.Reason)
		s.refuseLeaseWaiters(sl)
	} else {
		s.cfg.Log.Info("device recovered from its halt", "serial", m.Serial, "was", was)
		s.recheckAfterHalt(sl)
	}
	s.show(sl)
	s.dispatch(sl)
}

// refuseLeaseWaiters answers the lease requests, and the tasks of others than the holder,
// waiting for a device that just halted: a halted device is out of acquire_device until a
// person has recovered it, so they are told so now, with what to do, rather than granted a
// device whose every gesture fails, or left waiting for a person (a task waiting for the
// holder's lease waited out its wait_seconds, told only who held the device). The holder's own
// tasks stay: its recovery, and the looks a person judges the rig by.
func (s *Scheduler) refuseLeaseWaiters(sl *slot) {
	s.failQueue(sl, func(w *waiter) bool { return w.acquire != nil }, broker.OutcomeRefused, broker.CodeUnhealthy,
		haltedLeaseText(sl, "was halted while you waited"))
	s.failQueue(sl, func(w *waiter) bool { return w.task != nil && w.task.req.Lease == "" }, broker.OutcomeRefused, broker.CodeUnhealthy,
		haltedTaskText(sl, "was halted while your task waited"))
}

// refuseHaltedWait refuses a task that would wait in a halted device's queue (it is not the
// holder's): nothing but its holder's tasks waits for a halted device, which no one takes
// until a person has recovered it.
func (s *Scheduler) refuseHaltedWait(t *task, sl *slot) bool {
	if sl.halt == "" {
		return false
	}
	s.refuse(t, broker.CodeUnhealthy, haltedTaskText(sl, "is halted"), nil)
	return true
}

// haltedTaskText says why a task does not wait for a halted device; how says when it halted.
func haltedTaskText(sl *slot, how string) string {
	return fmt.Sprintf("device %s %s (%s); it takes no waiting tasks until that is done. Pick another device meanwhile", sl.info.Serial, how, sl.halt)
}

// haltedLeaseText says why a halted device takes no lease; how says when it halted.
func haltedLeaseText(sl *slot, how string) string {
	return fmt.Sprintf("device %s %s (%s); acquire_device takes it again once that is done. Pick another device meanwhile", sl.info.Serial, how, sl.halt)
}

// recheckAfterHalt asks a device whose health checks failed while it was halted (its actor
// restarted, say) to check again now, rather than at its back-off's next turn: it takes no
// tasks until one passes.
func (s *Scheduler) recheckAfterHalt(sl *slot) {
	if sl.health == broker.StateUnhealthy && sl.pid != nil {
		s.root.Send(sl.pid, recheckHealth{})
	}
}

// afterHaltedTask asks a halted device's actor, after a task succeeded on it, whether that
// task recovered it.
func (s *Scheduler) afterHaltedTask(sl *slot, res broker.TaskResult) {
	if sl.halt != "" && res.Outcome == broker.OutcomeSucceeded && sl.pid != nil {
		s.root.Send(sl.pid, haltCheck{})
	}
}

// haltChecked ends a halt once the device's health check passes: it is then healthy too.
func (s *Scheduler) haltChecked(m haltChecked) {
	sl, ok := s.slots[m.serial]
	if !ok || sl.halt == "" || m.err != nil {
		return
	}
	s.cfg.Log.Info("device recovered from its halt", "serial", m.serial, "was", sl.halt)
	sl.halt = ""
	s.deviceHealth(deviceHealth{serial: m.serial}) // shows it and hands it the next task
}

// takesTasks says whether tasks may start on the device: it is online, or halted (whatever
// its health checks say) and not offline.
func (sl *slot) takesTasks() bool {
	return sl.health == broker.StateOnline || (sl.halt != "" && sl.health != broker.StateOffline)
}
