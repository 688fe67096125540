package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
)

// QA Q9 L1: a model that echoed the API key (in a plan's title, in its text, in finished's
// content) had it kept verbatim in the task's report, JSON and events, where docs/agent.md
// says "[redacted] everywhere". The key, and a run of 8 or more of its first characters, is
// taken out of what the model wrote, streamed or not, as out of a server's error.
func TestEchoedKeyIsRedacted(t *testing.T) {
	t.Parallel()
	const key = "sk-corral-0123456789abcdef"
	for _, stream := range []bool{false, true} {
		r := newRig(t,
			plan(step{Title: "Log in with " + key}),
			thinkAloud("I type the key "+key+" into the box now"),
			finished("Done; the key starts "+key[:12]+"."),
		)
		c, err := model.NewClient(model.Config{BaseURL: r.srv.BaseURL(), Model: "modelsim", APIKey: model.NewSecret(key), Stream: stream}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.client = c
		task := run(t, context.Background(), r.options("log in"))
		wantStatus(t, task, agent.StatusFinished)
		b, err := json.Marshal(task)
		if err != nil {
			t.Fatal(err)
		}
		var events []string
		for _, ev := range r.events.all() {
			events = append(events, ev.Message)
		}
		for what, text := range map[string]string{"report": task.Markdown(), "JSON": string(b), "events": strings.Join(events, "\n")} {
			if strings.Contains(text, key[:8]) {
				t.Errorf("stream %t: the %s keeps the key: %s", stream, what, text)
			}
		}
		if !strings.Contains(task.Steps[0].Title, "[redacted]") || !strings.Contains(task.Conclusion, "the key starts [redacted].") {
			t.Errorf("stream %t: title %q, conclusion %q", stream, task.Steps[0].Title, task.Conclusion)
		}
	}
}
