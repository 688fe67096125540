package actors

import (
	"context"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// recoverable is a haltable device whose "panic" task panics, as a driver may, and whose
// "recover" task ends its halt, as arm_recover does.
type recoverable struct{ *haltable }

func (d *recoverable) Execute(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) broker.TaskResult {
	switch req.Tool {
	case "panic":
		panic("boom")
	case "recover":
		d.halted.Store(false)
	}
	return d.haltable.Execute(ctx, req, progress)
}

// A halted device whose actor restarted (its driver panicked) fails the health check the
// restart runs, yet still takes the task that recovers it, and is online again after it:
// an unhealthy device refuses tasks, and without the exception nothing could ever recover
// it short of restarting the node.
func TestHaltedDeviceTakesItsRecoveryAfterItsActorRestarts(t *testing.T) {
	h := newHarness(t, Config{})
	dev := &recoverable{&haltable{fakeDevice: &fakeDevice{serial: "d2", release: make(chan struct{})}}}
	h.root.Send(h.sched, AddDevice{Device: dev})
	h.shown(broker.StateOnline)

	dev.halted.Store(true)
	h.root.Send(h.sched, SetHalted{Serial: "d2", Reason: "halted: resume with recover"})
	h.shown(broker.StateUnhealthy)
	r := h.submit(broker.TaskRequest{ID: "p", Serial: "d2", Tool: "panic"}).wait()
	expect(t, r, broker.OutcomeFailed, broker.CodePanic)
	failed := dev.failed.Load()
	waitFor(t, "the restarted actor's health check", func() bool { return dev.failed.Load() > failed })
	if d := h.shown(broker.StateUnhealthy); d.Reason != "halted: resume with recover" {
		t.Fatalf("the halted device's actor restarted; it is shown with reason %q, want the halt's", d.Reason)
	}

	expect(t, h.submit(broker.TaskRequest{ID: "look", Serial: "d2", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	expect(t, h.submit(broker.TaskRequest{ID: "recover", Serial: "d2", Tool: "recover"}).wait(), broker.OutcomeSucceeded, "")
	h.shown(broker.StateOnline)
	expect(t, h.submit(broker.TaskRequest{ID: "after", Serial: "d2", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
}
