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

// The debug log of a task's progress names the tool called and its argument names, never a
// value: what the model types may be a password, and the plan, the model's words and the
// screen's text may repeat it. The caller's progress events still carry it all.
func TestProgressLogHoldsNoTypedText(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-TYPED"
	r := newRig(t,
		plan(step{Title: "Open Notes"}, step{Title: "Type " + secret}),
		tapLabel("Notes"),
		stepDone("success", "Notes is open"),
		modelsim.Turn{Text: "I type " + secret + ".", ToolCalls: []modelsim.ToolCall{{Name: "input", Arguments: `{"text":"` + secret + `"}`}}},
		stepDone("success", "typed "+secret),
		finished("The note says "+secret),
	)
	logs := &logtest.Buffer{}
	o := r.options("Write " + secret + " in Notes")
	o.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	task := run(t, context.Background(), o)

	wantStatus(t, task, agent.StatusFinished)
	if r.phone.Note() != secret {
		t.Fatalf("note %q", r.phone.Note())
	}
	var shown int
	for _, ev := range r.events.all() {
		if strings.Contains(ev.Message, secret) {
			shown++
		}
	}
	if shown < 3 { // the plan, the model's words, the tool call
		t.Errorf("%d progress events show the typed text, want the caller to see it", shown)
	}
	log := logs.String()
	if strings.Contains(log, secret) || strings.Contains(log, "hunter2") {
		t.Errorf("the log holds the typed text:\n%s", log)
	}
	if line := logs.Line("kind=tool_call step=2"); !strings.Contains(line, "tool=input") || !strings.Contains(line, "args=[text]") {
		t.Errorf("tool call line %q, want the tool and its argument names; log:\n%s", line, log)
	}
}
