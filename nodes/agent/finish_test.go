package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// A model that sees the goal already met finishes at once, while planning: its content is the
// task's conclusion, with no step run.
func TestFinishedWhilePlanningEndsTheTask(t *testing.T) {
	t.Parallel()
	r := newRig(t, finished("The phone is already on the home screen"))
	task := run(t, context.Background(), r.options("Go to the home screen"))

	wantStatus(t, task, agent.StatusFinished)
	if task.Conclusion != "The phone is already on the home screen" || len(task.Steps) != 0 || task.ModelCalls != 1 {
		t.Errorf("conclusion %q, %d steps, %d model calls", task.Conclusion, len(task.Steps), task.ModelCalls)
	}
	if md := task.Markdown(); !strings.Contains(md, "The phone is already on the home screen") {
		t.Errorf("the report has no conclusion:\n%s", md)
	}
	if r.phone.taps() != 0 {
		t.Errorf("%d taps", r.phone.taps())
	}
}

// finished without its required content is refused back to the model, while planning and in
// a step, and the task goes on to a real conclusion.
func TestFinishedWithoutContentIsRefused(t *testing.T) {
	t.Parallel()
	noContent := call("finished", map[string]any{})
	r := newRig(t, noContent, plan(step{Title: "Look"}), noContent, call("finished", map[string]string{"content": "  "}), finished("seen it"))
	task := run(t, context.Background(), r.options("Look at the screen"))

	wantStatus(t, task, agent.StatusFinished)
	if task.Conclusion != "seen it" {
		t.Errorf("conclusion %q, want the one finished gave with content", task.Conclusion)
	}
	reqs := r.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	if u := lastUser(reqs[1]); !strings.Contains(u, "it called finished wrongly: content is required") {
		t.Errorf("the planning retry does not say what was wrong: %q", u)
	}
	calls := task.Steps[0].ToolCalls
	if len(calls) != 3 || !strings.HasPrefix(calls[0].Error, "content is required") || !strings.HasPrefix(calls[1].Error, "content is required") {
		t.Errorf("tool calls %+v", calls)
	}
}

// A runaway answer is not sent back whole on the planning retry: its text and arguments go
// back clipped.
func TestJunkPlanIsReplayedClipped(t *testing.T) {
	t.Parallel()
	junk := strings.Repeat("blah ", 200_000) // 1 MB
	r := newRig(t,
		modelsim.Turn{Text: junk, ToolCalls: []modelsim.ToolCall{{Name: "plan", Arguments: `{"steps":"` + junk + `"}`}},
			Usage: &modelsim.Usage{PromptTokens: 1000, CompletionTokens: 1000}},
		plan(step{Title: "Look"}), finished("seen"))
	task := run(t, context.Background(), r.options("Look at the screen"))

	wantStatus(t, task, agent.StatusFinished)
	reqs := r.srv.Requests()
	if n, first := len(reqs[1].Body), len(reqs[0].Body); n > first+20_000 {
		t.Errorf("the retry is %d bytes, the first request %d: the junk answer was replayed", n, first)
	}
	for _, m := range reqs[1].Messages {
		if m.Role == "assistant" && (len(m.Text) > 20_000 || len(m.ToolCalls) != 1 || len(m.ToolCalls[0].Arguments) > 20_000) {
			t.Errorf("replayed answer: %d bytes of text, calls %d", len(m.Text), len(m.ToolCalls))
		}
	}
}

// The action budget's error advises what a caller can do: there is no argument to raise it.
func TestActionBudgetAdvice(t *testing.T) {
	t.Parallel()
	r := newRig(t, plan(step{Title: "Tap around"}), tapXY(0.1, 0.13), tapXY(0.2, 0.13), finished("x"))
	o := r.options("Tap around")
	o.Budget.MaxActions = 1
	task := run(t, context.Background(), o)

	wantStatus(t, task, agent.StatusFailed)
	if want := "budget: all 1 device actions used: split the goal into smaller agent tasks, each with fewer actions"; !strings.HasPrefix(task.Error, want) {
		t.Errorf("error %q, want %q", task.Error, want)
	}
	if strings.Contains(task.Error, "larger action budget") {
		t.Errorf("the error advises a budget no caller can set: %q", task.Error)
	}
}
