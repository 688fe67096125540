package agent_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
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

// timedOutAfter checks that err says the task timed out after the time from its start to
// ctx's deadline (to the millisecond, or to 100ms from 1s on), and returns what follows.
func timedOutAfter(t *testing.T, ctx context.Context, task *agent.Task, err string) (rest string) {
	t.Helper()
	m := regexp.MustCompile(`^timed out after ([0-9.]+m?s)`).FindStringSubmatch(err)
	if m == nil {
		t.Fatalf("error %q does not say it timed out after how long", err)
	}
	dl, _ := ctx.Deadline()
	want := dl.Sub(task.Started)
	unit := time.Millisecond
	if want >= time.Second {
		unit = 100 * time.Millisecond
	}
	// Started is taken a moment before the task's own clock starts: allow that moment.
	if got, perr := time.ParseDuration(m[1]); perr != nil || got < want-unit/2-time.Millisecond || got > want+unit/2 {
		t.Errorf("error %q: timed out after %s, want %s", err, m[1], want.Round(unit))
	}
	return strings.TrimPrefix(err, m[0])
}

// expiring is a context whose deadline passes when expire is called: a test times the task
// out where it means to (in a model call, a device call), however fast the machine is.
type expiring struct {
	context.Context // Background's values
	done            chan struct{}
	mu              sync.Mutex
	at              time.Time
}

func newExpiring() *expiring {
	return &expiring{Context: context.Background(), done: make(chan struct{})}
}

// Deadline is when expire was called; none before.
func (e *expiring) Deadline() (time.Time, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.at, !e.at.IsZero()
}

func (e *expiring) Done() <-chan struct{} { return e.done }

func (e *expiring) Err() error {
	select {
	case <-e.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (e *expiring) expire() {
	e.mu.Lock()
	e.at = time.Now()
	e.mu.Unlock()
	close(e.done)
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
	ctx := newExpiring()
	wait := returnsSoon(t, ctx, r.options("Open Settings"))
	waitFor(t, "the step's request", func() bool { return len(r.srv.Requests()) == 2 })
	ctx.expire()
	task := wait()

	wantStatus(t, task, agent.StatusAborted)
	if rest := timedOutAfter(t, ctx, task, task.Error); !strings.HasPrefix(rest, " waiting for the model") || !task.TimedOut || !task.ModelTimedOut {
		t.Errorf("error %q, timed out %t, waiting for the model %t", task.Error, task.TimedOut, task.ModelTimedOut)
	}
	wantStepStatuses(t, task, agent.StepFailed, agent.StepSkipped)
}

// stuckTapRig plans one step, whose model taps; the phone turns slow just as it does.
func stuckTapRig(t *testing.T) *rig {
	r := newRig(t, plan(step{Title: "Tap"}))
	r.srv.Script(modelsim.Turn{Reply: func(modelsim.Request) modelsim.Turn {
		r.phone.SetDelay(stuck)
		return tapXY(0.5, 0.5)
	}})
	return r
}

func TestTimeoutDuringADeviceCall(t *testing.T) {
	t.Parallel()
	r := stuckTapRig(t)
	ctx := newExpiring()
	wait := returnsSoon(t, ctx, r.options("Tap the middle"))
	waitFor(t, "the tap in flight", func() bool { return r.phone.InFlight() == 1 })
	ctx.expire()
	task := wait()

	wantStatus(t, task, agent.StatusAborted)
	if rest := timedOutAfter(t, ctx, task, task.Error); rest != "" || !task.TimedOut || task.ModelTimedOut {
		t.Errorf("error %q, timed out %t, waiting for the model %t: the model was not to blame", task.Error, task.TimedOut, task.ModelTimedOut)
	}
	if !strings.HasPrefix(task.Markdown(), "## ⏱️ Agent task timed out\n") {
		t.Errorf("report:\n%s", task.Markdown())
	}
}

func TestAbortDuringADeviceCall(t *testing.T) {
	t.Parallel()
	r := stuckTapRig(t)
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
