package actors

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// countingDevice is a fakeDevice that counts the tasks its driver gets.
type countingDevice struct {
	*fakeDevice
	calls atomic.Int32
}

func (d *countingDevice) Execute(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) broker.TaskResult {
	d.calls.Add(1)
	return d.fakeDevice.Execute(ctx, req, progress)
}

// A loss verdict heard as an asked task is handed to its driver, after the worker's last look
// at the task's context and before its start is decided (Config.beforeStart holds the worker
// there while the verdict ends it, as the node's heardLost does from its own goroutine): the
// driver never gets the task, refused node_lost, nothing run. A verdict heard just after the
// driver got it ends nothing: the task runs on (a first verdict's revoke ends it, lost).
func TestLossAsAnAskedTaskIsHandedToItsDriverRunsNothing(t *testing.T) {
	pendings := make(chan PendingStart, 4) // each asked task's, from its question
	var endAtStart atomic.Bool
	var endedAtStart atomic.Int32
	h := newHarness(t, Config{MayHaveBeenLost: func() bool { return true },
		CallerListens: func(ctx context.Context, _ broker.TaskRequest) bool {
			if p, ok := PendingStartOf(ctx); ok {
				pendings <- p
			}
			return true // its caller still waits
		},
		beforeStart: func() {
			if !endAtStart.Load() {
				return
			}
			p := <-pendings
			verdict := make(chan struct{})
			go func() { p.EndLost(); close(verdict) }() // the node hears of its loss now
			<-verdict
			endedAtStart.Add(1)
		}})
	dev := &countingDevice{fakeDevice: &fakeDevice{serial: "d2", release: make(chan struct{})}}
	t.Cleanup(func() { close(dev.release) })
	h.root.Send(h.sched, AddDevice{Device: dev})
	deadline := time.Now().Add(5 * time.Second)
	for h.submit(broker.TaskRequest{ID: "probe", Serial: "d2", Tool: "noop"}).wait().Code == broker.CodeUnhealthy {
		if time.Now().After(deadline) {
			t.Fatal("d2 never became healthy")
		}
		time.Sleep(5 * time.Millisecond)
	}
	calls := dev.calls.Load()

	endAtStart.Store(true)
	res := h.submit(broker.TaskRequest{ID: "handed", Serial: "d2", Tool: "block", Probe: "handed"}).wait()
	if endedAtStart.Load() != 1 {
		t.Fatalf("the verdict did not come as the task was handed to its driver (%d times)", endedAtStart.Load())
	}
	expect(t, res, broker.OutcomeRefused, broker.CodeNodeLost)
	if !strings.Contains(res.Error, "block did not run") || !res.Started.IsZero() {
		t.Fatalf("the answer does not say nothing ran (start %s): %s", res.Started, res.Error)
	}
	if got := dev.calls.Load() - calls; got != 0 {
		t.Fatalf("the driver got the task the loss had ended (%d calls)", got)
	}

	endAtStart.Store(false)
	running := h.submit(broker.TaskRequest{ID: "runs", Serial: "d2", Tool: "block", Probe: "runs"})
	p := <-pendings
	for deadline := time.Now().Add(10 * time.Second); !dev.isRunning(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the driver never got the task")
		}
	}
	p.EndLost() // a verdict that revokes nothing, heard as it runs
	select {
	case dev.release <- struct{}{}:
	case res := <-running:
		t.Fatalf("a verdict heard as the task ran ended it: %s/%s (%s)", res.Outcome, res.Code, res.Error)
	}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
}
