package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/agent"
)

func TestMarkdownReport(t *testing.T) {
	t.Parallel()
	task := &agent.Task{
		Goal: "Open Settings\nand check Wi-Fi", Status: agent.StatusFailed, DurationMS: 32500,
		Error: "step 2 (Open Wi-Fi) failed: no Wi-Fi row",
		Steps: []agent.Step{
			{Index: 1, Title: "Open Settings", Status: agent.StepSuccess, DurationMS: 5200, ToolCalls: []agent.ToolCall{
				{Name: "tap", Args: json.RawMessage(`{"bbox":[0,0.29,0.25,0.43]}`), Result: "tapped (135, 865)"},
				{Name: "step_done", Args: json.RawMessage(`{"status":"success","summary":"open"}`), Result: "step success"}}},
			{Index: 2, Title: "Open Wi-Fi", Status: agent.StepFailed, DurationMS: 1000, Error: "no Wi-Fi row", ToolCalls: []agent.ToolCall{
				{Name: "input", Args: json.RawMessage(`{"text":"a` + "`" + `b"}`), Error: "no focus:\nopen Notes"},
				{Name: "tap_xy", Args: json.RawMessage(`{"x":0.5,"y":0.5}`), Result: strings.Repeat("é", 250)}}},
			{Index: 3, Title: "Report", Status: agent.StepSkipped},
		},
	}
	want := "## ❌ Agent task failed\n\n" +
		"**Goal**: Open Settings and check Wi-Fi\n" +
		"**Status**: failed  **Steps**: 1/3 succeeded  **Duration**: 32.5s\n\n" +
		"**Error**: step 2 (Open Wi-Fi) failed: no Wi-Fi row\n\n" +
		"---\n\n" +
		"### ✅ Step 1: Open Settings (5.2s)\n" +
		"- `tap({\"bbox\":[0,0.29,0.25,0.43]})` → tapped (135, 865)\n" +
		"- `step_done({\"status\":\"success\",\"summary\":\"open\"})` → step success\n\n" +
		"### ❌ Step 2: Open Wi-Fi (1.0s)\n" +
		"- `` input({\"text\":\"a`b\"}) `` → ❌ no focus: open Notes\n" +
		"- `tap_xy({\"x\":0.5,\"y\":0.5})` → " + strings.Repeat("é", 200) + "…\n" +
		"- ❌ no Wi-Fi row\n\n" +
		"### ⏭️ Step 3: Report (0.0s)\n"
	if got := task.Markdown(); got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
	if task.StepsCompleted() != 1 {
		t.Errorf("steps completed %d", task.StepsCompleted())
	}
}

func TestMarkdownOfARun(t *testing.T) {
	t.Parallel()
	r := settingsRig(t)
	o := r.options("Open Settings, then Wi-Fi")
	// A clock that moves 100 ms per reading makes the durations exact.
	var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	o.Clock = func() time.Time { now = now.Add(100 * time.Millisecond); return now }
	task := run(t, context.Background(), o)
	wantStatus(t, task, agent.StatusFinished)

	md := task.Markdown()
	for _, want := range []string{
		"## ✅ Agent task finished\n\n**Goal**: Open Settings, then Wi-Fi\n**Status**: finished  **Steps**: 2/2 succeeded  **Duration**: 0.9s\n",
		"\n**Conclusion**: Wi-Fi is on and connected to CorralNet\n\n---\n",
		"\n### ✅ Step 1: Open Settings (0.3s)\n- `tap({\"bbox\":[",
		"]})` → tapped (",
		"- `step_done({\"status\":\"success\",\"summary\":\"Settings is open\"})` → step success\n",
		"\n### ✅ Step 2: Open Wi-Fi (0.3s)\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	if task.DurationMS != 900 || !task.Ended.Equal(task.Started.Add(900*time.Millisecond)) {
		t.Errorf("duration %d ms from %s to %s", task.DurationMS, task.Started, task.Ended)
	}
}

func TestTaskJSON(t *testing.T) {
	t.Parallel()
	r := settingsRig(t)
	task := run(t, context.Background(), r.options("Open Settings, then Wi-Fi"))
	b, err := json.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Goal, Status, Conclusion string
		Error                    *string
		Steps                    []map[string]any
		Started, Ended           time.Time
		DurationMS               *int64 `json:"durationMs"`
		ModelCalls               int    `json:"modelCalls"`
		Actions                  []map[string]any
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Goal != task.Goal || got.Status != "finished" || got.Conclusion == "" || got.Error != nil || got.DurationMS == nil ||
		got.ModelCalls != 6 || got.Started.IsZero() || got.Ended.Before(got.Started) {
		t.Errorf("task JSON %s", b)
	}
	if len(got.Steps) != 2 || len(got.Actions) != 2 {
		t.Fatalf("steps and actions in %s", b)
	}
	s := got.Steps[0]
	calls, _ := s["toolCalls"].([]any)
	if s["index"] != 1.0 || s["title"] != "Open Settings" || s["status"] != "success" || len(calls) != 2 || s["Before"] != nil || s["before"] != nil {
		t.Errorf("step JSON %v", s)
	}
	if c := calls[0].(map[string]any); c["name"] != "tap" || c["args"] == nil || c["result"] == nil {
		t.Errorf("tool call JSON %v", c)
	}
	if a := got.Actions[0]; a["step"] != 1.0 || a["tool"] != "tap" || a["expectText"] != "Wi-Fi" || a["waitMs"] == nil {
		t.Errorf("action JSON %v", a)
	}

	// A task that never ran still marshals its lists as lists, not null.
	b, _ = json.Marshal(agent.Run(context.Background(), agent.Options{}))
	if !strings.Contains(string(b), `"steps":[]`) || !strings.Contains(string(b), `"actions":[]`) {
		t.Errorf("empty task JSON %s", b)
	}
}
