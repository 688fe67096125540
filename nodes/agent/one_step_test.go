package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
)

// QA Q9 L2, L3: with one plan step allowed (ai_action), a model that split the action in two
// failed the call ("the plan has 2 steps, at most 1 are allowed"), after a prompt to "split the
// user's goal into 1 to 1 short steps", and "📋 Plan made (1 steps)". The parts become one step,
// done in order; the words are singular; and the action budget's error is worded for one
// action, not "split the goal into smaller agent tasks".
func TestOneStepRunTakesASplitPlan(t *testing.T) {
	t.Parallel()
	r := newRig(t,
		plan(step{Title: "Open Settings"}, step{Title: "Open Wi-Fi", Description: "the first row"}),
		tapLabel("Settings"),
		tapLabel("Wi-Fi"),
		tapXY(0.5, 0.5), // a third action: past the budget
	)
	o := r.options("open the Wi-Fi settings")
	o.Budget = agent.Budget{MaxSteps: 1, MaxActions: 2}
	task := run(t, context.Background(), o)

	if len(task.Steps) != 1 || task.Steps[0].Title != "Open Settings, then Open Wi-Fi" || !strings.Contains(task.Steps[0].Description, "the first row") {
		t.Fatalf("steps %+v, want the two parts as one", task.Steps)
	}
	if len(task.Actions) != 2 {
		t.Errorf("actions %+v, want both taps", task.Actions)
	}
	if prompt := r.srv.Requests()[0].Messages[0].Text; !strings.Contains(prompt, "split the user's goal into 1 short step,") {
		t.Errorf("the plan's prompt: %q", prompt)
	}
	var planned string
	for _, ev := range r.events.all() {
		if ev.Kind == agent.EventPlanned {
			planned = ev.Message
		}
	}
	if !strings.HasPrefix(planned, "📋 Plan made (1 step): ") {
		t.Errorf("planned %q", planned)
	}
	// The third model turn found the budget used up.
	wantStatus(t, task, agent.StatusFailed)
	if !strings.Contains(task.Error, "ask for less in one action") || strings.Contains(task.Error, "agent tasks") {
		t.Errorf("error %q is not worded for one action", task.Error)
	}
}
