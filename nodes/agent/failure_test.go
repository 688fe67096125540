package agent_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

func TestFailingStepFailsTheTask(t *testing.T) {
	t.Parallel()
	r := newRig(t,
		plan(step{Title: "Open Bluetooth pairing"}, step{Title: "Pair the headset"}),
		stepDone("failed", "There is no pairing screen on this phone"),
	)
	task := run(t, context.Background(), r.options("Pair my headset"))

	wantStatus(t, task, agent.StatusFailed)
	wantStepStatuses(t, task, agent.StepFailed, agent.StepSkipped)
	if want := "step 1 (Open Bluetooth pairing) failed: There is no pairing screen on this phone"; task.Error != want {
		t.Errorf("error %q, want %q", task.Error, want)
	}
	if task.Steps[0].Error != "There is no pairing screen on this phone" {
		t.Errorf("step error %q", task.Steps[0].Error)
	}
	waitFor(t, "the error event", func() bool {
		evs := r.events.all()
		return len(evs) > 0 && evs[len(evs)-1].Kind == agent.EventError
	})
	evs := r.events.all()
	if got := evs[len(evs)-1].Message; got != "❌ Agent error: "+task.Error {
		t.Errorf("error event %q", got)
	}
	if got := evs[len(evs)-2].Message; got != "⏭️ Step 2 skipped" {
		t.Errorf("skipped event %q", got)
	}
	if n := len(r.srv.Requests()); n != 2 {
		t.Errorf("%d model calls after the failed step, want 2 (no conclusion)", n)
	}
}

func TestGarbageFromTheModel(t *testing.T) {
	t.Parallel()
	r := newRig(t, modelsim.Turn{Raw: "<html>bad gateway</html>"})
	task := run(t, context.Background(), r.options("Open Settings"))

	wantStatus(t, task, agent.StatusFailed)
	if !strings.HasPrefix(task.Error, "planning: model call: the model endpoint sent a malformed answer") {
		t.Errorf("error %q", task.Error)
	}
	if len(task.Steps) != 0 || task.ModelCalls != 1 {
		t.Errorf("%d steps after %d model calls", len(task.Steps), task.ModelCalls)
	}
}

func TestServerErrorRetriedOnce(t *testing.T) {
	t.Parallel()
	r := newRig(t,
		modelsim.Fail(http.StatusServiceUnavailable, "overloaded"),
		plan(step{Title: "Look"}),
		finished("seen"),
	)
	task := run(t, context.Background(), r.options("Look at the screen"))
	wantStatus(t, task, agent.StatusFinished)
	if task.ModelCalls != 3 {
		t.Errorf("%d model calls, want 3", task.ModelCalls)
	}

	r = newRig(t, modelsim.Fail(http.StatusInternalServerError, "down"), modelsim.Fail(http.StatusInternalServerError, "still down"))
	task = run(t, context.Background(), r.options("Look at the screen"))
	wantStatus(t, task, agent.StatusFailed)
	if !strings.Contains(task.Error, "model server failed") || !strings.Contains(task.Error, "still down") || task.ModelCalls != 2 {
		t.Errorf("error %q after %d calls", task.Error, task.ModelCalls)
	}
}

func TestPlanRetriedOnceWithACorrection(t *testing.T) {
	t.Parallel()
	r := newRig(t,
		modelsim.Say("Sure! First I will open Settings."),
		plan(step{Title: "Look"}),
		finished("seen"),
	)
	task := run(t, context.Background(), r.options("Look at the screen"))
	wantStatus(t, task, agent.StatusFinished)
	reqs := r.srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if u := lastUser(reqs[1]); !strings.Contains(u, "That was no usable plan: it answered text instead of calling plan") {
		t.Errorf("the retry does not say what was wrong: %q", u)
	}
}

func TestNoPlan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		turns []modelsim.Turn
		want  string
	}{
		{"text twice", []modelsim.Turn{modelsim.Say("I would open Settings"), modelsim.Say("Open Settings, then tap Wi-Fi")},
			`it answered text instead of calling plan: "Open Settings, then tap Wi-Fi"`},
		{"malformed plans", []modelsim.Turn{
			modelsim.Call(modelsim.ToolCall{Name: "plan", Arguments: `{"steps": "open settings"`}),
			call("plan", map[string]any{"steps": []map[string]string{{"description": "untitled"}}})},
			"step 1 has no title"},
		{"another tool", []modelsim.Turn{call("tap_xy", map[string]float64{"x": 0.5, "y": 0.5}), call("home", map[string]any{})},
			"it called home, not plan"},
		{"too many steps", []modelsim.Turn{plan(step{Title: "a"}, step{Title: "b"}, step{Title: "c"}), plan(step{Title: "a"}, step{Title: "b"}, step{Title: "c"})},
			"the plan has 3 steps, at most 2 are allowed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, c.turns...)
			o := r.options("Check Wi-Fi")
			o.Budget.MaxSteps = 2
			task := run(t, context.Background(), o)
			wantStatus(t, task, agent.StatusFailed)
			if !strings.HasPrefix(task.Error, "planning: the model made no usable plan, twice") || !strings.Contains(task.Error, c.want) {
				t.Errorf("error %q, want it to say %q", task.Error, c.want)
			}
			if len(task.Steps) != 0 || r.phone.taps() != 0 {
				t.Errorf("steps %v, taps %d", task.Steps, r.phone.taps())
			}
		})
	}
}

func TestNoToolCallInAStep(t *testing.T) {
	t.Parallel()
	r := newRig(t,
		plan(step{Title: "Open Settings"}, step{Title: "Open Wi-Fi"}),
		modelsim.Say("I think Settings is the grey icon."),
		modelsim.Say("Settings is open now."),
	)
	task := run(t, context.Background(), r.options("Open Wi-Fi settings"))

	wantStatus(t, task, agent.StatusFailed)
	wantStepStatuses(t, task, agent.StepFailed, agent.StepSkipped)
	if !strings.Contains(task.Error, `step 1: the model answered without calling a tool, twice ("Settings is open now.")`) || strings.Contains(task.Error, "stream") {
		t.Errorf("error %q", task.Error)
	}
	if reqs := r.srv.Requests(); len(reqs) != 3 || !strings.HasPrefix(lastUser(reqs[2]), "Call a tool") {
		t.Errorf("the model was not nudged after %d requests", len(reqs))
	}
}

// A model that gets its calls wrong hears why, and may put them right.
func TestBadCallsAreShownToTheModel(t *testing.T) {
	t.Parallel()
	r := newRig(t,
		plan(step{Title: "Open Settings"}),
		modelsim.Call(modelsim.ToolCall{Name: "teleport", Arguments: `{}`}, modelsim.ToolCall{Name: "tap", Arguments: `{"bbox": [0.1,`}),
		call("tap", map[string]any{"bbox": []float64{2, 2, 3, 3}}),
		call("step_done", map[string]string{"status": "maybe"}),
		tapLabel("Settings"),
		finished("Settings is open"),
	)
	task := run(t, context.Background(), r.options("Open Settings"))

	wantStatus(t, task, agent.StatusFinished)
	calls := task.Steps[0].ToolCalls
	wantErrs := []string{`there is no tool "teleport"`, "the arguments are not a JSON object", "is off the screen",
		`status must be "success" or "failed", not "maybe"`, "", ""}
	if len(calls) != len(wantErrs) {
		t.Fatalf("tool calls %+v", calls)
	}
	for i, want := range wantErrs {
		if (want == "") != (calls[i].Error == "") || !strings.Contains(calls[i].Error, want) {
			t.Errorf("call %d (%s) error %q, want %q", i, calls[i].Name, calls[i].Error, want)
		}
	}
	if string(calls[1].Args) != `"{\"bbox\": [0.1,"` {
		t.Errorf("broken arguments recorded as %s, want them as a JSON string", calls[1].Args)
	}
	reqs := r.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6", len(reqs))
	}
	var results []string
	for _, m := range reqs[2].Messages {
		if m.Role == "tool" {
			results = append(results, m.Text)
		}
	}
	if len(results) != 2 || !strings.HasPrefix(results[0], "error: there is no tool") || !strings.HasPrefix(results[1], "error: the arguments") {
		t.Errorf("tool results the model saw: %q", results)
	}
	if u := lastUser(reqs[3]); !strings.Contains(u, "The screen after your actions") {
		t.Errorf("no new screen after the failed tap: %q", u)
	}
	if len(task.Actions) != 1 || r.phone.taps() != 1 {
		t.Errorf("actions %+v and %d taps, want the good tap alone", task.Actions, r.phone.taps())
	}
	if _, err := json.Marshal(task); err != nil {
		t.Errorf("the task does not marshal: %v", err)
	}
}

func TestWrongCallsRepeatedFailTheStep(t *testing.T) {
	t.Parallel()
	wrong := modelsim.Call(modelsim.ToolCall{Name: "open_app", Arguments: `{"name":"Settings"}`})
	r := newRig(t, plan(step{Title: "Open Settings"}), wrong, modelsim.Say("hmm"), wrong, wrong, finished("never"))
	task := run(t, context.Background(), r.options("Open Settings"))

	wantStatus(t, task, agent.StatusFailed)
	if !strings.HasPrefix(task.Error, "step 1: the model called tools wrongly 3 turns in a row") {
		t.Errorf("error %q", task.Error)
	}
	if n := len(task.Steps[0].ToolCalls); n != 3 || r.srv.Left() != 1 {
		t.Errorf("%d tool calls recorded, %d turns left, want 3 and the finished turn never asked for", n, r.srv.Left())
	}
}
