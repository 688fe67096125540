package agent_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// settingsScript opens Settings, then Wi-Fi, and concludes when asked.
func settingsRig(t *testing.T) *rig {
	return newRig(t,
		plan(step{"Open Settings", "Tap the Settings icon"}, step{"Open Wi-Fi", "Tap the Wi-Fi row"}),
		tapLabel("Settings"),
		stepDone("success", "Settings is open"),
		tapLabel("Wi-Fi"),
		stepDone("success", "Wi-Fi is on, connected to CorralNet"),
		finished("Wi-Fi is on and connected to CorralNet"),
	)
}

func TestOpensSettingsThenASetting(t *testing.T) {
	t.Parallel()
	r := settingsRig(t)
	task := run(t, context.Background(), r.options("Open Settings, then Wi-Fi, and tell me whether Wi-Fi is connected"))

	wantStatus(t, task, agent.StatusFinished)
	wantStepStatuses(t, task, agent.StepSuccess, agent.StepSuccess)
	if task.Conclusion != "Wi-Fi is on and connected to CorralNet" {
		t.Errorf("conclusion %q", task.Conclusion)
	}
	// The phone itself shows the Wi-Fi page of Settings, reached by two taps.
	if got := r.phone.foreground(t); got != "com.corral.settings" {
		t.Errorf("foreground app %q, want com.corral.settings", got)
	}
	if src := r.phone.source(t); !strings.Contains(src, "Use Wi-Fi") {
		t.Errorf("the phone does not show the Wi-Fi page:\n%s", src)
	}
	if n := r.phone.taps(); n != 2 {
		t.Errorf("%d taps on the phone, want 2: %v", n, r.phone.InputLog())
	}
	if task.ModelCalls != 6 || task.Usage.TotalTokens == 0 {
		t.Errorf("%d model calls using %+v, want 6 with tokens counted", task.ModelCalls, task.Usage)
	}

	// The actions replay the run: a tap per step, each with a label the next screen showed, and
	// only it (not the toolbar's "Navigate up", which every sub-screen shows).
	if len(task.Actions) != 2 {
		t.Fatalf("actions %+v, want 2", task.Actions)
	}
	for i, want := range []string{"Wi-Fi", "Use Wi-Fi"} {
		a := task.Actions[i]
		if a.Step != i+1 || a.Tool != "tap" || !strings.HasPrefix(string(a.Args), `{"bbox":[`) || a.ExpectText != want {
			t.Errorf("action %d: %+v, want a tap in step %d expecting %q", i, a, i+1, want)
		}
	}
	for i, s := range task.Steps {
		if len(s.Before) == 0 || len(s.After) == 0 || string(s.Before) == string(s.After) {
			t.Errorf("step %d: screenshots before (%d bytes) and after (%d bytes) missing or alike", i+1, len(s.Before), len(s.After))
		}
		if names := []string{s.ToolCalls[0].Name, s.ToolCalls[1].Name}; !slices.Equal(names, []string{"tap", "step_done"}) {
			t.Errorf("step %d tool calls %v", i+1, names)
		}
	}

	// What the model was asked: a plan with the plan tool (and finished, for a goal already met), then steps with the device's
	// tools and the agent's, the recap carrying what step 1 found.
	reqs := r.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6", len(reqs))
	}
	if got := toolNames(reqs[0]); !slices.Equal(got, []string{"plan", "finished"}) {
		t.Errorf("planning tools %v", got)
	}
	if got := toolNames(reqs[1]); !slices.Equal(got, []string{"tap", "tap_xy", "input", "home", "swipe_direction", "step_done", "finished"}) {
		t.Errorf("step tools %v", got)
	}
	if len(reqs[0].Messages[1].Images) != 1 || !strings.HasPrefix(reqs[0].Messages[1].Images[0], "data:image/jpeg;base64,") {
		t.Errorf("the planning request carries no JPEG screenshot")
	}
	if u := lastUser(reqs[3]); !strings.Contains(u, "1. Open Settings [done: Settings is open]") || !strings.Contains(u, "Do step 2 now: Open Wi-Fi") {
		t.Errorf("step 2's request does not recap step 1:\n%s", u)
	}
	if got := toolNames(reqs[5]); !slices.Equal(got, []string{"finished"}) {
		t.Errorf("conclusion tools %v", got)
	}
}

func TestProgressInTheSeedsOrder(t *testing.T) {
	t.Parallel()
	r := settingsRig(t)
	task := run(t, context.Background(), r.options("Open Settings, then Wi-Fi"))
	wantStatus(t, task, agent.StatusFinished)

	want := []string{agent.EventPlanned,
		agent.EventStepStart, agent.EventThinking, agent.EventToolCall, agent.EventToolResult, agent.EventStepEnd,
		agent.EventStepStart, agent.EventThinking, agent.EventToolCall, agent.EventToolResult, agent.EventStepEnd}
	waitFor(t, "all events delivered", func() bool { return len(r.events.all()) >= len(want) })
	if got := r.events.kinds(); !slices.Equal(got, want) {
		t.Fatalf("event kinds\n%v, want\n%v", got, want)
	}
	evs := r.events.all()
	lines := []*regexp.Regexp{
		regexp.MustCompile(`^📋 Plan made \(2 steps\): 1\. Open Settings; 2\. Open Wi-Fi$`),
		regexp.MustCompile(`^▶️ Step 1: Open Settings — Tap the Settings icon$`),
		regexp.MustCompile(`^💭 I tap Settings\.$`),
		regexp.MustCompile(`^🔧 tap\(\{"bbox":\[[0-9.,]+\]\}\)$`),
		regexp.MustCompile(`^→ tapped \(\d+, \d+\)$`),
		regexp.MustCompile(`^✅ Step 1 done \(success, \d+\.\ds\)$`),
	}
	for i, re := range lines {
		if !re.MatchString(evs[i].Message) {
			t.Errorf("event %d: %q does not match %s", i, evs[i].Message, re)
		}
	}
	for _, ev := range evs {
		if wantStep := ev.Kind != agent.EventPlanned; (ev.Step > 0) != wantStep {
			t.Errorf("event %+v: step number", ev)
		}
	}
}

func TestTypesIntoNotes(t *testing.T) {
	t.Parallel()
	r := newRig(t,
		plan(step{Title: "Write the note"}),
		tapLabel("Notes"),
		call("input", map[string]string{"text": "buy milk"}),
		finished("The note says: buy milk"),
	)
	task := run(t, context.Background(), r.options("Write 'buy milk' in Notes"))

	wantStatus(t, task, agent.StatusFinished)
	if got := r.phone.Note(); got != "buy milk" {
		t.Errorf("the note is %q, want buy milk", got)
	}
	if log := r.phone.InputLog(); !slices.Contains(log, `text "buy milk"`) {
		t.Errorf("input log %v", log)
	}
	if task.Conclusion != "The note says: buy milk" || task.ModelCalls != 4 {
		t.Errorf("conclusion %q after %d model calls, want the finished content after 4 (no conclusion call)", task.Conclusion, task.ModelCalls)
	}
	if len(task.Actions) != 2 || task.Actions[1].Tool != "input" || string(task.Actions[1].Args) != `{"text":"buy milk"}` {
		t.Fatalf("actions %+v", task.Actions)
	}
	if task.Actions[1].ExpectText != "buy milk" {
		t.Errorf("after typing, expect text %q, want the typed note", task.Actions[1].ExpectText)
	}
}

func TestNothingToRunWith(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	for _, c := range []struct {
		name string
		o    agent.Options
		want string
	}{
		{"no goal", agent.Options{Goal: " ", Model: r.client, Device: r.phone}, "no goal"},
		{"no model", agent.Options{Goal: "x", Device: r.phone}, "no model"},
		{"no device", agent.Options{Goal: "x", Model: r.client}, "no device"},
	} {
		task := agent.Run(context.Background(), c.o)
		if task.Status != agent.StatusFailed || !strings.Contains(task.Error, c.want) {
			t.Errorf("%s: %s %q", c.name, task.Status, task.Error)
		}
	}
	if n := len(r.srv.Requests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
}

// A task counts in corral_agent_tasks_running while it runs, with a model that counts.
func TestRunningTasksAreCounted(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := modelsim.New(modelsim.Turn{Reply: func(modelsim.Request) modelsim.Turn {
		<-release // the task is running until the plan comes
		return finished("already done")
	}})
	t.Cleanup(srv.Close)
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	t.Cleanup(let) // before srv.Close: a failed test leaves no handler waiting
	reg := prometheus.NewRegistry()
	c, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "modelsim"}, nil, model.WithMetrics(model.NewMetrics(reg)))
	if err != nil {
		t.Fatal(err)
	}
	running := func() float64 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "corral_agent_tasks_running" {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		t.Fatal("no corral_agent_tasks_running")
		return 0
	}
	done := make(chan *agent.Task, 1)
	go func() {
		done <- agent.Run(context.Background(), agent.Options{Goal: "Go home", Model: c, Device: newPhone(t)})
	}()
	waitFor(t, "the task to count as running", func() bool { return running() == 1 })
	let()
	wantStatus(t, <-done, agent.StatusFinished)
	if v := running(); v != 0 {
		t.Errorf("%v tasks running after the task ended", v)
	}
}
