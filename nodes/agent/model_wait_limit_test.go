package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// QA pass Y: a task whose caller gave it timeoutMs 1000, with a model that answers after 1.5 s,
// was told to check that the model server is up, as a hung one. When the deadline is the
// caller's own time limit (agent.TimeLimit, its context's cause) the error says so and that a
// larger timeoutMs helps; the hung-server advice stays for the node's deadline
// (TestTimeoutWaitingForTheModel).
func TestTimeoutMsEndsWhileTheModelAnswers(t *testing.T) {
	t.Parallel()
	srv := modelsim.New(modelsim.Turn{Delay: stuck, Text: "late"}) // slower than the limit
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "slowpoke"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Long enough for the task to look at the screen and ask the model on a loaded machine.
	const limit = 4 * time.Second
	ctx, cancel := context.WithTimeoutCause(context.Background(), limit, agent.TimeLimit{Arg: "timeoutMs", D: limit})
	defer cancel()
	task := agent.Run(ctx, agent.Options{Goal: "look", Model: m, Device: newPhone(t)})

	wantStatus(t, task, agent.StatusAborted)
	if !task.TimedOut || !task.ModelTimedOut || len(srv.Requests()) != 1 {
		t.Fatalf("timed out %t, waiting for the model %t, %d requests: %s", task.TimedOut, task.ModelTimedOut, len(srv.Requests()), task.Error)
	}
	if rest := timedOutAfter(t, ctx, task, task.Error); !strings.HasPrefix(rest, " waiting for the model") {
		t.Errorf("error %q does not say it waited for the model", task.Error)
	}
	for _, want := range []string{`model "slowpoke" at ` + srv.BaseURL() + " had not answered when the task's timeoutMs of 4s ran out",
		"(its call waited ", "pass a larger timeoutMs", "a faster model"} {
		if !strings.Contains(task.Error, want) {
			t.Errorf("error %q lacks %q", task.Error, want)
		}
	}
	for _, wrong := range []string{"hung", "more time will not help", "check that the model server is up"} {
		if strings.Contains(task.Error, wrong) {
			t.Errorf("error %q: %q is for a model the node's deadline cut, not the caller's timeoutMs", task.Error, wrong)
		}
	}
}
