package actors

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// A task whose caller has gone when its turn comes after a wait does not run: refused with
// caller_gone, its record showing no start, and the next waiter runs. A task that starts at
// once is not asked, nor one from a gateway that gave no probe. Both queues: the device's
// (waiting for the device) and the lease holder's own (behind its running task).
func TestQueuedTaskOfAGoneCallerIsRefused(t *testing.T) {
	var asked atomic.Int32
	h := newHarness(t, Config{CallerListens: func(_ context.Context, req broker.TaskRequest) bool {
		asked.Add(1)
		return req.Probe != "gone"
	}})
	expect(t, h.submit(broker.TaskRequest{ID: "at-once", Tool: "noop", Probe: "gone"}).wait(), broker.OutcomeSucceeded, "")
	if n := asked.Load(); n != 0 {
		t.Fatalf("a task that started at once asked its caller %d times", n)
	}

	running := h.submit(broker.TaskRequest{ID: "a", Tool: "block", Holder: broker.Holder{Principal: "alice"}})
	gone := h.submit(broker.TaskRequest{ID: "gone", Tool: "noop", WaitMS: 5000, Probe: "gone"})
	live := h.submit(broker.TaskRequest{ID: "live", Tool: "noop", WaitMS: 5000, Probe: "live"})
	old := h.submit(broker.TaskRequest{ID: "old", Tool: "noop", WaitMS: 5000}) // an older gateway's
	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	res := gone.wait()
	expect(t, res, broker.OutcomeRefused, broker.CodeCallerGone)
	if !res.Started.IsZero() {
		t.Fatalf("the record of a task that did not run shows a start: %s", res.Started)
	}
	expect(t, live.wait(), broker.OutcomeSucceeded, "")
	expect(t, old.wait(), broker.OutcomeSucceeded, "")

	l := (<-h.acquire("bob", 0)).Lease
	first := h.submit(broker.TaskRequest{ID: "1", Tool: "block", Lease: l.Handle})
	goneOwn := h.submit(broker.TaskRequest{ID: "2", Tool: "noop", Lease: l.Handle, Probe: "gone"})
	liveOwn := h.submit(broker.TaskRequest{ID: "3", Tool: "noop", Lease: l.Handle, Probe: "live"})
	h.dev.release <- struct{}{}
	expect(t, first.wait(), broker.OutcomeSucceeded, "")
	expect(t, goneOwn.wait(), broker.OutcomeRefused, broker.CodeCallerGone)
	expect(t, liveOwn.wait(), broker.OutcomeSucceeded, "")
	if n := asked.Load(); n != 4 {
		t.Fatalf("callers asked %d times, want 4 (each task that waited and gave a probe, once)", n)
	}
}
