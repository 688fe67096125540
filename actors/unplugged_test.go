package actors

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// stopsWithSteps is a device whose "work" task, cancelled, returns what it did so far, as an
// agent task does: once let go (stopped), or never if it ignores its cancellation.
type stopsWithSteps struct {
	serial  string
	ignores bool
	stopped chan struct{}
	started chan struct{}
}

func (d *stopsWithSteps) Info() broker.DeviceEntry {
	return broker.DeviceEntry{Serial: d.serial, Platform: "android"}
}

func (d *stopsWithSteps) Deadline(string, int64) (time.Duration, error) { return 10 * time.Second, nil }

func (d *stopsWithSteps) Health(context.Context) error { return nil }

func (d *stopsWithSteps) Execute(ctx context.Context, req broker.TaskRequest, _ func(broker.Progress)) broker.TaskResult {
	if req.Tool != "work" {
		return broker.TaskResult{Outcome: broker.OutcomeSucceeded}
	}
	d.started <- struct{}{}
	if !d.ignores {
		<-ctx.Done()
	}
	<-d.stopped
	return broker.TaskResult{Outcome: broker.OutcomeFailed, Error: "the agent stopped after 1 step",
		Data: json.RawMessage(`{"totalSteps":1,"actions":[{"tool":"press_key","key":"HOME"}]}`)}
}

// addStopsWithSteps adds such a device to h and waits for its health check.
func addStopsWithSteps(h *harness, ignores bool) *stopsWithSteps {
	h.t.Helper()
	d := &stopsWithSteps{serial: "p1", ignores: ignores, stopped: make(chan struct{}), started: make(chan struct{}, 1)}
	h.root.Send(h.sched, AddDevice{Device: d})
	deadline := time.Now().Add(5 * time.Second)
	for h.submit(broker.TaskRequest{ID: "probe-p1", Serial: "p1", Tool: "noop"}).wait().Code == broker.CodeUnhealthy {
		if time.Now().After(deadline) {
			h.t.Fatal("device p1 never became healthy")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return d
}

// record polls for the task record of id.
func (h *harness) record(id string) broker.TaskResult {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		h.rec.mu.Lock()
		for _, r := range h.rec.records {
			if r.ID == id {
				h.rec.mu.Unlock()
				return r
			}
		}
		h.rec.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatalf("no record of task %s", id)
	return broker.TaskResult{}
}

// A task whose device goes away is answered with what its op returned as it stopped, within
// Grace: its caller and its record carry the partial result (an agent's steps and actions, for
// export), failed with code disconnected. The device's queue is refused at once, and nothing
// else starts on it while the op still returns.
func TestUnpluggedTaskAnswersWithItsPartialResult(t *testing.T) {
	h := newHarness(t, Config{Grace: 5 * time.Second})
	d := addStopsWithSteps(h, false)
	running := h.submit(broker.TaskRequest{ID: "agent", Serial: "p1", Tool: "work"})
	<-d.started
	waiting := h.submit(broker.TaskRequest{ID: "waiting", Serial: "p1", Tool: "noop", WaitMS: 5000})
	h.root.Send(h.sched, RemoveDevice{Serial: "p1", Reason: "adb lost"})

	expect(t, waiting.wait(), broker.OutcomeLost, broker.CodeOffline) // while the op still runs
	expect(t, h.submit(broker.TaskRequest{ID: "new", Serial: "p1", Tool: "noop"}).wait(), broker.OutcomeRefused, broker.CodeOffline)
	select {
	case r := <-running:
		t.Fatalf("answered before its op returned: %s/%s (%s)", r.Outcome, r.Code, r.Error)
	default:
	}
	close(d.stopped)

	res := running.wait()
	expect(t, res, broker.OutcomeFailed, broker.CodeDisconnected)
	for _, r := range []broker.TaskResult{res, h.record("agent")} {
		if !strings.Contains(string(r.Data), `"totalSteps":1`) || !strings.Contains(r.Error, "disconnected") ||
			!strings.Contains(r.Error, "the agent stopped after 1 step") {
			t.Fatalf("the answer or record lost the op's partial result: error %q, data %s", r.Error, r.Data)
		}
	}
}

// An op that does not return within Grace of its device going away leaves its caller answered
// without it, failed with code disconnected, as before; its late result changes nothing.
func TestUnpluggedTaskThatDoesNotStopIsAnsweredAfterGrace(t *testing.T) {
	h := newHarness(t, Config{Grace: 100 * time.Millisecond})
	d := addStopsWithSteps(h, true)
	running := h.submit(broker.TaskRequest{ID: "stuck", Serial: "p1", Tool: "work"})
	<-d.started
	h.root.Send(h.sched, RemoveDevice{Serial: "p1", Reason: "unplugged"})
	res := running.wait()
	expect(t, res, broker.OutcomeFailed, broker.CodeDisconnected)
	if len(res.Data) != 0 || !strings.Contains(res.Error, "disconnected during the task (unplugged)") {
		t.Fatalf("want the removal's answer alone: error %q, data %s", res.Error, res.Data)
	}
	close(d.stopped)
	expect(t, h.submit(broker.TaskRequest{ID: "after", Serial: "p1", Tool: "noop"}).wait(), broker.OutcomeRefused, broker.CodeOffline)
}
