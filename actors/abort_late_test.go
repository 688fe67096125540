package actors

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// slowToStop is a device whose "late" task, once its context ends, returns only when let go
// (stopped): a driver still returning after the task's deadline.
type slowToStop struct {
	ended   chan struct{} // the task's context ended
	stopped chan struct{}
}

func (d *slowToStop) Info() broker.DeviceEntry {
	return broker.DeviceEntry{Serial: "p1", Platform: "android"}
}

func (d *slowToStop) Deadline(_ string, askedMS int64) (time.Duration, error) {
	if askedMS > 0 {
		return time.Duration(askedMS) * time.Millisecond, nil
	}
	return 10 * time.Second, nil
}

func (d *slowToStop) Health(context.Context) error { return nil }

func (d *slowToStop) Execute(ctx context.Context, req broker.TaskRequest, _ func(broker.Progress)) broker.TaskResult {
	if req.Tool != "late" {
		return broker.TaskResult{Outcome: broker.OutcomeSucceeded}
	}
	<-ctx.Done()
	d.ended <- struct{}{}
	<-d.stopped
	return broker.TaskResult{Outcome: broker.OutcomeFailed, Error: "the driver stopped late"}
}

// An abort that comes while a task's driver is still returning after the task's deadline is
// answered that the task had timed out already, not among the tasks it aborted: the task ends
// timed_out, as the deadline that came first decided. It was answered aborted while the task
// ended timed_out, two answers that disagreed.
func TestAbortAfterTheDeadlineIsAnsweredTimedOut(t *testing.T) {
	h, d := newSlowToStopHarness(t)

	running := h.submit(broker.TaskRequest{ID: "slow", Serial: "p1", Tool: "late", TimeoutMS: 50})
	select {
	case <-d.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the task's deadline never ended its context")
	}
	ans := h.abort(broker.AbortRequest{TaskID: "slow", By: "alice (claude)"})
	close(d.stopped)
	if len(ans.Aborted) != 0 || !slices.Equal(ans.TimedOut, []string{"slow"}) {
		t.Errorf("the abort after the deadline answered aborted %v, timed out %v; want the task timed out, none aborted", ans.Aborted, ans.TimedOut)
	}
	res := running.wait()
	for what, r := range map[string]broker.TaskResult{"answer": res, "record": h.record("slow")} {
		if r.Outcome != broker.OutcomeTimedOut || strings.Contains(r.Error, "aborted") {
			t.Errorf("the task's %s is %s (%s), want timed_out", what, r.Outcome, r.Error)
		}
	}
}

// newSlowToStopHarness is a node whose device p1, online, is a slowToStop, with a grace
// period long enough that the driver returns within it.
func newSlowToStopHarness(t *testing.T) (*harness, *slowToStop) {
	t.Helper()
	h := newHarness(t, Config{Grace: 10 * time.Second})
	d := &slowToStop{ended: make(chan struct{}, 1), stopped: make(chan struct{})}
	h.root.Send(h.sched, AddDevice{Device: d})
	deadline := time.Now().Add(5 * time.Second)
	for h.submit(broker.TaskRequest{ID: "probe-p1", Serial: "p1", Tool: "noop"}).wait().Code == broker.CodeUnhealthy {
		if time.Now().After(deadline) {
			t.Fatal("device p1 never became healthy")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return h, d
}
