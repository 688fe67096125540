package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

func TestLoopDetected(t *testing.T) {
	t.Parallel()
	// The clock on the home screen does nothing when tapped: the model taps it again and again.
	r := newRig(t, plan(step{Title: "Open the clock"}), tapXY(0.5, 0.13), tapXY(0.5, 0.13), tapXY(0.5, 0.13), tapXY(0.5, 0.13))
	task := run(t, context.Background(), r.options("Open the clock"))

	wantStatus(t, task, agent.StatusFailed)
	if !strings.HasPrefix(task.Error, `loop detected: tap_xy({"x":0.5,"y":0.13}) for the third time on the same screen`) {
		t.Errorf("error %q", task.Error)
	}
	if n := r.phone.taps(); n != 2 {
		t.Errorf("%d taps reached the phone, want 2: the third is not run", n)
	}
	calls := task.Steps[0].ToolCalls
	if len(calls) != 3 || !strings.HasPrefix(calls[2].Error, "not run: loop detected") {
		t.Errorf("tool calls %+v", calls)
	}
}

func TestActionBudget(t *testing.T) {
	t.Parallel()
	r := newRig(t, plan(step{Title: "Tap around"}), tapXY(0.1, 0.13), tapXY(0.2, 0.13), tapXY(0.3, 0.13), finished("x"))
	o := r.options("Tap around")
	o.Budget.MaxActions = 2
	task := run(t, context.Background(), o)

	wantStatus(t, task, agent.StatusFailed)
	if !strings.HasPrefix(task.Error, "budget: all 2 device actions used") {
		t.Errorf("error %q", task.Error)
	}
	if n := r.phone.taps(); n != 2 || len(task.Actions) != 2 {
		t.Errorf("%d taps, %d actions, want 2", n, len(task.Actions))
	}
}

func TestTokenBudget(t *testing.T) {
	t.Parallel()
	costly := func(turn modelsim.Turn) modelsim.Turn {
		turn.Usage = &modelsim.Usage{PromptTokens: 400, CompletionTokens: 100}
		return turn
	}
	r := newRig(t, costly(plan(step{Title: "Tap around"})), costly(tapXY(0.1, 0.13)), costly(tapXY(0.2, 0.13)), costly(finished("x")))
	o := r.options("Tap around")
	o.Budget.MaxTokens = 1200
	task := run(t, context.Background(), o)

	wantStatus(t, task, agent.StatusFailed)
	if !strings.HasPrefix(task.Error, "budget: 1500 tokens used, more than the 1200 a task may use: split the goal into smaller agent tasks") ||
		!strings.Contains(task.Error, "maxSteps") || strings.Contains(task.Error, "larger token budget") {
		t.Errorf("error %q: no argument raises the budget, so it says what the caller can do", task.Error)
	}
	if task.Usage.PromptTokens != 1200 || task.Usage.CompletionTokens != 300 || task.ModelCalls != 3 {
		t.Errorf("usage %+v after %d calls", task.Usage, task.ModelCalls)
	}
	if n := r.phone.taps(); n != 1 {
		t.Errorf("%d taps, want 1: the answer past the budget is not acted on", n)
	}
}
