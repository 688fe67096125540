package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// runner is one Run's state. It lives on Run's goroutine alone; only events leave it.
type runner struct {
	o         Options
	log       *slog.Logger
	now       func() time.Time
	task      *Task
	events    *reporter
	guard     *guard
	tools     []model.Tool    // the device's tools, then step_done and finished
	device    map[string]bool // the device's tool names
	summaries []string        // what each finished step found, for the next steps' recap
	lastObs   Observation     // the latest look at the screen
	live      bool            // the model streams: its text goes out as thinking events while it writes
	began     time.Time       // wall time of the start, for "timed out after"
	last      time.Time       // when the previous recorded action ended
}

// Run runs the goal to its end and returns the task, whatever happens: finished, failed (a step failed, the model answered garbage, a budget ran out, a loop was detected) or aborted (ctx cancelled or its deadline passed; the error says which). It returns within ~200 ms of ctx ending, between or during steps (model calls and device calls get ctx).
func Run(ctx context.Context, o Options) *Task {
	defer metricsOf(o.Model).TaskStarted()()
	r := newRunner(o)
	defer r.events.close(drainGrace)
	r.end(ctx, r.run(ctx))
	return r.task
}

func newRunner(o Options) *runner {
	o.Budget = o.Budget.withDefaults()
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	// The goal is not logged: it may hold what the user typed for the phone (a password).
	log := o.Log
	return &runner{
		o: o, log: log, now: o.Clock, guard: newGuard(o.Budget), live: streams(o.Model),
		task:   &Task{Goal: o.Goal, Status: StatusIdle, Steps: []Step{}, Actions: []Action{}},
		events: newReporter(o.Progress, log),
	}
}

func (r *runner) run(ctx context.Context) error {
	t := r.task
	t.Started, r.began = r.now(), time.Now()
	t.Status = StatusPlanning
	r.log.Debug("agent task started", "budget", fmt.Sprintf("%+v", r.o.Budget))
	switch {
	case strings.TrimSpace(r.o.Goal) == "":
		return failed(failSetup, errors.New("no goal: say in words what to do on the phone"))
	case r.o.Model == nil:
		return failed(failSetup, errors.New("no model: configure one (OPENAI_BASE_URL, OPENAI_MODEL) for agent tasks"))
	case r.o.Device == nil:
		return failed(failSetup, errors.New("no device to act on"))
	}
	r.offerTools()
	if done, err := r.plan(ctx); err != nil || done {
		return err
	}
	t.Status = StatusExecuting
	for i := range t.Steps {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		done, err := r.step(ctx, i)
		if err != nil || done {
			return err
		}
	}
	return r.conclude(ctx)
}

// offerTools puts the device's tools and the agent's own in one list; a device tool named as
// one of the agent's is left out, as the model could not tell them apart.
func (r *runner) offerTools() {
	r.device = map[string]bool{}
	for _, tl := range r.o.Device.Tools() {
		if tl.Name == toolPlan || tl.Name == toolStepDone || tl.Name == toolFinished {
			r.log.Warn("device tool left out: its name is the agent's own", "tool", tl.Name)
			continue
		}
		r.device[tl.Name] = true
		r.tools = append(r.tools, tl)
	}
	r.tools = append(r.tools, stepDoneTool, finishedTool)
}

// end settles the task: its status and error, the step in progress and those never reached.
func (r *runner) end(ctx context.Context, err error) {
	t := r.task
	switch {
	case err == nil:
		t.Status = StatusFinished
	case ctx.Err() != nil && failingCause(ctx) != nil: // its node stopped, or its device went away
		t.Status, t.Error = StatusFailed, r.abortReason(ctx, err)
	case ctx.Err() != nil:
		// A task that timed out is aborted, as in the seed's state machine; TimedOut tells it apart.
		t.Status, t.Error = StatusAborted, r.abortReason(ctx, err)
		t.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		var mw *modelWait
		t.ModelTimedOut = t.TimedOut && errors.As(err, &mw)
	default:
		t.Status, t.Error = StatusFailed, err.Error()
	}
	for i := range t.Steps {
		s := &t.Steps[i]
		switch s.Status {
		case StepRunning: // step settles its own step; this is a safety net
			s.Status, s.Error = StepFailed, t.Error
		case StepPending:
			s.Status = StepSkipped
			r.emit(EventStepEnd, s.Index, "⏭️ Step %d skipped", s.Index)
		}
	}
	if err != nil {
		t.Failure, t.Cause = failureKind(ctx, err), err
	}
	t.Ended = r.now()
	t.DurationMS = ms(t.Ended.Sub(t.Started))
	if t.Error != "" {
		r.emit(EventError, 0, "❌ Agent error: %s", t.Error)
	}
	// The error's kind and length, not its text: it may quote the model, which may repeat the goal.
	r.log.Info("agent task ended", "status", t.Status, "timed_out", t.TimedOut, "failure", t.Failure,
		"error_runes", runes(t.Error), "steps", len(t.Steps),
		"succeeded", t.StepsCompleted(), "actions", len(t.Actions), "model_calls", t.ModelCalls,
		"tokens", t.Usage.TotalTokens, "took", time.Duration(t.DurationMS)*time.Millisecond)
}

// abortReason says why ctx ended: an abort, the task's deadline, or a failing cause; err is what the task was
// doing then (a model call that got no answer is named, with what to do about it).
func (r *runner) abortReason(ctx context.Context, err error) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		d := time.Since(r.began)
		if dl, ok := ctx.Deadline(); ok {
			d = dl.Sub(r.began)
		}
		// The deadline was set a moment before Run began: round that moment away.
		unit := time.Millisecond
		if d >= time.Second {
			unit = 100 * time.Millisecond
		}
		why := "timed out after " + d.Round(unit).String()
		var mw *modelWait
		if errors.As(err, &mw) {
			why += " " + mw.explain(timeLimitOf(ctx, r.o.Limit))
		}
		return why
	}
	if f := failingCause(ctx); f != nil { // not an abort: the task fails with its words
		return f.Error()
	}
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		if why := c.Error(); strings.HasPrefix(why, "aborted") { // the scheduler's "aborted by …": once
			return why
		}
		return "aborted: " + c.Error()
	}
	return "aborted"
}

// observe looks at the screen.
func (r *runner) observe(ctx context.Context) (Observation, error) {
	o, err := r.o.Device.Observe(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return o, ctx.Err()
		}
		return o, failed(failDevice, fmt.Errorf("looking at the screen: %w: check the device is on and unlocked", err))
	}
	return o, nil
}

// emit reports progress. Its debug line holds the kind and step, never the message: that may
// hold what the user typed (a password into a field), the model's words on it, or the
// screen's text.
func (r *runner) emit(kind string, step int, format string, args ...any) {
	r.emitLogged(kind, step, nil, format, args...)
}

// emitLogged is emit whose debug line also carries attrs: names only, no free text.
func (r *runner) emitLogged(kind string, step int, attrs []any, format string, args ...any) {
	r.log.Debug("agent progress", append([]any{"kind", kind, "step", step}, attrs...)...)
	r.events.emit(Event{Kind: kind, Step: step, Message: fmt.Sprintf(format, args...)})
}
