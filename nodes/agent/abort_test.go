package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// stuck is far longer than any wait below: a Run that returns at all returned because of ctx.
const stuck = 10 * time.Second

// returnsSoon runs o in the background and returns a func that, called once ctx has ended,
// waits for the task, failing the test if Run did not return well before stuck.
func returnsSoon(t *testing.T, ctx context.Context, o agent.Options) func() *agent.Task {
	done := make(chan *agent.Task, 1)
	go func() { done <- agent.Run(ctx, o) }()
	return func() *agent.Task {
		t.Helper()
		select {
		case task := <-done:
			return task
		case <-time.After(stuck / 2):
			t.Fatalf("Run did not return within %s of ctx ending", stuck/2)
			return nil
		}
	}
}

// timedOutAfter is how a task that ctx's deadline ended says so: the time from its start to
// the deadline, which is the timeout less however long the task took to start.
func timedOutAfter(ctx context.Context, task *agent.Task) string {
	dl, _ := ctx.Deadline()
	return "timed out after " + dl.Sub(task.Started).Round(100*time.Millisecond).String()
}

func TestAbortDuringAModelCall(t *testing.T) {
	t.Parallel()
	r := newRig(t, modelsim.Turn{Delay: stuck, ToolCalls: []modelsim.ToolCall{{Name: "plan", Arguments: `{"steps":[{"title":"x"}]}`}}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wait := returnsSoon(t, ctx, r.options("Open Settings"))
	waitFor(t, "the planning request", func() bool { return len(r.srv.Requests()) == 1 })
	cancel()
	task := wait()

	wantStatus(t, task, agent.StatusAborted)
	if task.Error != "aborted" || len(task.Steps) != 0 {
		t.Errorf("error %q, steps %v", task.Error, task.Steps)
	}
}

func TestAbortWithACause(t *testing.T) {
	t.Parallel()
	r := newRig(t, plan(step{Title: "Wait"}, step{Title: "Then this"}), modelsim.Turn{Delay: stuck, Text: "late"})
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	wait := returnsSoon(t, ctx, r.options("Open Settings"))
	waitFor(t, "the step's request", func() bool { return len(r.srv.Requests()) == 2 })
	cancel(errors.New("abort_task called"))
	task := wait()

	wantStatus(t, task, agent.StatusAborted)
	if task.Error != "aborted: abort_task called" {
		t.Errorf("error %q", task.Error)
	}
	wantStepStatuses(t, task, agent.StepFailed, agent.StepSkipped)
	if task.Steps[0].Error != task.Error {
		t.Errorf("step error %q", task.Steps[0].Error)
	}
}

func TestTimeoutDuringAStep(t *testing.T) {
	t.Parallel()
	r := newRig(t, plan(step{Title: "Wait"}, step{Title: "Then this"}), modelsim.Turn{Delay: stuck, Text: "late"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	task := returnsSoon(t, ctx, r.options("Open Settings"))()

	wantStatus(t, task, agent.StatusAborted)
	if !strings.HasPrefix(task.Error, timedOutAfter(ctx, task)+" waiting for the model") || !task.TimedOut || !task.ModelTimedOut {
		t.Errorf("error %q, timed out %t, waiting for the model %t", task.Error, task.TimedOut, task.ModelTimedOut)
	}
	wantStepStatuses(t, task, agent.StepFailed, agent.StepSkipped)
}

func TestTimeoutDuringADeviceCall(t *testing.T) {
	t.Parallel()
	r := newRig(t, plan(step{Title: "Tap"}))
	r.srv.Script(modelsim.Turn{Reply: func(modelsim.Request) modelsim.Turn {
		r.phone.SetDelay(stuck)
		return tapXY(0.5, 0.5)
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	task := returnsSoon(t, ctx, r.options("Tap the middle"))()

	wantStatus(t, task, agent.StatusAborted)
	if task.Error != timedOutAfter(ctx, task) || !task.TimedOut || task.ModelTimedOut {
		t.Errorf("error %q, timed out %t, waiting for the model %t: the model was not to blame", task.Error, task.TimedOut, task.ModelTimedOut)
	}
	if !strings.HasPrefix(task.Markdown(), "## ⏱️ Agent task timed out\n") {
		t.Errorf("report:\n%s", task.Markdown())
	}
}

func TestAbortDuringADeviceCall(t *testing.T) {
	t.Parallel()
	r := newRig(t, plan(step{Title: "Tap"}))
	// The phone turns slow just as the model answers with a tap.
	r.srv.Script(modelsim.Turn{Reply: func(modelsim.Request) modelsim.Turn {
		r.phone.SetDelay(stuck)
		return tapXY(0.5, 0.5)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wait := returnsSoon(t, ctx, r.options("Tap the middle"))
	waitFor(t, "the tap in flight", func() bool {
		return slices.Contains(r.events.kinds(), agent.EventToolCall) && r.phone.InFlight() == 1
	})
	cancel()
	task := wait()

	wantStatus(t, task, agent.StatusAborted)
	wantStepStatuses(t, task, agent.StepFailed)
	calls := task.Steps[0].ToolCalls
	if len(calls) != 1 || calls[0].Name != "tap_xy" || !strings.Contains(calls[0].Error, "context canceled") {
		t.Errorf("tool calls %+v", calls)
	}
	if len(task.Actions) != 0 || task.Steps[0].Error != "aborted" {
		t.Errorf("actions %v, step error %q", task.Actions, task.Steps[0].Error)
	}
}
