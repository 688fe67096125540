package actors

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A running task whose caller has been gone for CallerGoneAfter is aborted, caller_gone, its
// record showing that it started; one whose caller was gone only a moment (a gateway
// reconnecting) runs on.
func TestRunningTaskOfAGoneCallerIsAborted(t *testing.T) {
	var here atomic.Bool
	var gone, asked atomic.Int32
	h := newHarness(t, Config{CallerCheckEvery: 20 * time.Millisecond, CallerGoneAfter: time.Second,
		CallerListens: func(_ context.Context, req broker.TaskRequest) bool {
			if req.Probe == "" {
				t.Errorf("task %s, which named no probe, was asked about", req.ID)
			}
			asked.Add(1)
			if here.Load() {
				return true
			}
			gone.Add(1)
			return false
		}})
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("waited 10 s for %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	// Gone a moment, then back: the task runs on to its end.
	here.Store(true)
	blinks := h.submit(broker.TaskRequest{ID: "blinks", Tool: "block", Probe: "p"})
	waitFor("the caller asked", func() bool { return asked.Load() > 0 })
	here.Store(false)
	waitFor("two answers that it is gone", func() bool { return gone.Load() >= 2 })
	here.Store(true)
	n := asked.Load()
	waitFor("two answers after it is back", func() bool { return asked.Load() >= n+2 })
	h.dev.release <- struct{}{}
	expect(t, blinks.wait(), broker.OutcomeSucceeded, "")

	// Gone for good: aborted, its record saying why, the device free for the next.
	gone.Store(0)
	here.Store(false)
	start := time.Now()
	res := h.submit(broker.TaskRequest{ID: "left", Tool: "block", Probe: "p"}).wait()
	expect(t, res, broker.OutcomeAborted, broker.CodeCallerGone)
	if !strings.Contains(res.Error, "its caller went away while block ran") || res.Started.IsZero() {
		t.Fatalf("record: started %s, error %q; want a start and why", res.Started, res.Error)
	}
	if !strings.Contains(res.AbortedBy, "its caller went away") {
		t.Fatalf("record's aborted_by %q; want the node, as its caller went away", res.AbortedBy)
	}
	if took := time.Since(start); took < time.Second || gone.Load() < 2 {
		t.Fatalf("aborted after %s and %d answers that its caller was gone; want CallerGoneAfter (1 s) and more than one", took, gone.Load())
	}
}
