package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// An abort_task whose node aborts nothing of a task still running (an earlier abort stopped it
// and its driver is still returning: the node lists a task for one abort only) says the task
// is being aborted already, by task id and without arguments; it does not claim to abort it,
// nor (by task id, its record not written yet) refuse the id as one no task has. (TestTwoAborts-
// AtOnceClaimTheTaskOnce runs two aborts at once on a farm; the window this needs is a moment.)
func TestAbortOfATaskAlreadyBeingAborted(t *testing.T) {
	farm := newFakeFarm(t)
	let := make(chan struct{})
	t.Cleanup(func() { close(let) })
	farm.RunFn = func(_ context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error) {
		progress(broker.Progress{TaskID: req.ID, Message: "planning"})
		<-let
		return broker.TaskResult{ID: req.ID, Outcome: broker.OutcomeAborted, Submitted: time.Now()}, nil
	}
	farm.TaskRecordFn = func(_ context.Context, id string) (broker.TaskResult, error) {
		return broker.TaskResult{}, fmt.Errorf("task %s: %w", id, broker.ErrNotFound) // still ending: no record yet
	}
	farm.AbortFn = func(context.Context, broker.AbortRequest) (broker.AbortAnswer, error) {
		return broker.AbortAnswer{V: broker.WireVersion, Aborted: []string{}}, nil // an earlier abort stopped it
	}
	cl := newTestClient(t, farm)
	started := wantOK(t, "run_agent_task", call(t, cl, "run_agent_task", map[string]any{"serial": phone, "goal": "think long", "wait": false}))
	id, _ := started["taskId"].(string)
	farm.mu.Lock()
	farm.devices[0].Task = &broker.RunningTask{ID: id, Tool: "run_agent_task", Started: time.Now()} // the registry still shows it
	farm.mu.Unlock()

	for _, args := range []map[string]any{nil, {"taskId": id}} {
		out := wantOK(t, "abort_task", call(t, cl, "abort_task", args))
		msg, _ := out["message"].(string)
		if want := "Task " + id + " (run_agent_task on device " + phone + ") is already being aborted"; !strings.HasPrefix(msg, want) {
			t.Errorf("abort_task %v: %q, want it to start %q", args, msg, want)
		}
		if aborted, _ := out["aborted"].([]any); len(aborted) != 0 {
			t.Errorf("abort_task %v: aborted %v, want none", args, aborted)
		}
	}
}
