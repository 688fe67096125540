package actors

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A task that arrives during a capture whose driver returns only after the grace period (a
// starved host did not schedule the cancelled capture's goroutine within 1 s) waits for it
// and runs: the device was slow, not stuck, and stays online.
func TestTaskWaitsForACaptureSlowerThanGrace(t *testing.T) {
	const grace = 250 * time.Millisecond
	h, dev := newScreenHarnessWithGrace(t, false, grace)
	before := h.unhealthyShown()
	dev.slow = true // Screen returns only at dev.shot once cancelled
	got := h.capture("d1")
	within(t, dev.looking, "capture")
	task := h.submit(broker.TaskRequest{ID: "t", Tool: "noop"})
	within(t, dev.cancelled, "the capture's cancellation by the task")
	cancelled := time.Now()
	waitFor(t, "two grace periods since the task cancelled the capture", func() bool { return time.Since(cancelled) > 2*grace })
	select {
	case r := <-task:
		t.Fatalf("the task was answered while the capture it cancelled was still running: %s/%s (%s)", r.Outcome, r.Code, r.Error)
	default:
	}
	dev.shot <- struct{}{} // the driver returns at last
	if s := within(t, got, "answer"); !errors.Is(s.err, context.Canceled) {
		t.Fatalf("a capture a task cut short: %v, want context.Canceled", s.err)
	}
	expect(t, task.wait(), broker.OutcomeSucceeded, "")
	if h.unhealthyShown() != before {
		t.Fatal("a capture slower than the grace period marked the device unhealthy")
	}
	if dev.overlap {
		t.Fatal("a task ran alongside a capture")
	}
}

// A task waiting for a capture that never returns ends at its own deadline and the grace
// period after it, as a running task would, before the wait's upper bound: timed out, and the
// device is marked unhealthy.
func TestStuckCaptureEndsTheWaitingTaskAtItsDeadline(t *testing.T) {
	const grace = 250 * time.Millisecond
	h, dev := newScreenHarnessWithGrace(t, true, grace)
	before := h.unhealthyShown()
	got := h.capture("d1")
	within(t, dev.looking, "capture")
	arrived := time.Now()
	r := h.submit(broker.TaskRequest{ID: "t", Tool: "noop", TimeoutMS: 100}).wait()
	waited := time.Since(arrived)
	expect(t, r, broker.OutcomeTimedOut, "")
	if !strings.Contains(r.Error, "did not return from a screenshot") {
		t.Fatalf("a task that waited for a stuck capture: %q, want the stuck capture named", r.Error)
	}
	if bound := captureWaitGraces * grace; waited >= bound {
		t.Fatalf("the task was answered %s after it arrived, not at its deadline (100ms) and the grace period: its deadline did not hold", waited)
	}
	if s := within(t, got, "answer"); !errors.Is(s.err, errDriverStuck) {
		t.Fatalf("a stuck capture: %v", s.err)
	}
	waitFor(t, "the device shown unhealthy", func() bool { return h.unhealthyShown() > before })
	dev.shot <- struct{}{} // the stuck Screen returns at last; its answer is ignored
	waitOnline(t, h)
}
