package agent_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// A task that fails on the model's words logs what kind of failure it was, never the words:
// the model may repeat the goal, and the goal may hold a passcode the user gave it to type.
// The task's record keeps the text for its caller.
func TestFailureLogsHoldNoModelText(t *testing.T) {
	t.Parallel()
	const secret = "pass-7391-MARKER"
	says := "I would type " + secret + " but I cannot plan."
	refusal := `{"id":"r1","object":"chat.completion","created":1,"model":"modelsim","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":"","refusal":"I will not type ` + secret + `"},"finish_reason":"stop"}]}`
	cases := []struct {
		name    string
		script  []modelsim.Turn
		failure string
	}{
		{"plan answered as text", []modelsim.Turn{modelsim.Say(says), modelsim.Say(says)}, "failure=no_plan"},
		{"plan refused", []modelsim.Turn{{Raw: refusal}, modelsim.Say(says)}, "failure=no_plan"},
		{"plan called another tool", []modelsim.Turn{call("type_"+secret, map[string]string{}), modelsim.Say(says)}, "failure=no_plan"},
		{"step answered as text", []modelsim.Turn{plan(step{Title: "Type " + secret}), modelsim.Say(says), modelsim.Say(says)}, "failure=no_tool_call"},
		{"step given up", []modelsim.Turn{plan(step{Title: "Type " + secret}), stepDone("failed", "no field for "+secret)}, "failure=step_failed"},
		{"loop typing", []modelsim.Turn{plan(step{Title: "Type it"}),
			call("input", map[string]string{"text": secret}), call("input", map[string]string{"text": secret}),
			call("input", map[string]string{"text": secret})}, "failure=loop"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, c.script...)
			logs := &logtest.Buffer{}
			o := r.options("Unlock with " + secret + " and open Notes")
			o.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			task := run(t, context.Background(), o)

			wantStatus(t, task, agent.StatusFailed)
			if !strings.Contains(task.Error, secret) {
				t.Errorf("the task's error %q lost the model's words its caller should see", task.Error)
			}
			end := logs.Line("agent task ended")
			if !strings.Contains(end, c.failure) || !strings.Contains(end, "error_runes=") {
				t.Errorf("end line %q, want %s and the error's length; log:\n%s", end, c.failure, logs)
			}
			if log := logs.String(); strings.Contains(log, secret) || strings.Contains(log, "7391") {
				t.Errorf("the log holds the goal or the model's words:\n%s", log)
			}
		})
	}
}
