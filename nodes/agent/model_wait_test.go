package agent_test

import (
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// A task whose deadline passes while the model is silent says that it waited for the model,
// which one at which endpoint (never its key), for how long, and that the server needs
// looking at; its report's heading says it timed out, and the node's log says so too.
func TestTimeoutWaitingForTheModel(t *testing.T) {
	t.Parallel()
	const key = "sk-hung-secret-key"
	srv := modelsim.New(modelsim.Turn{Delay: stuck, Text: "late"}) // silent until the client leaves
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "slowpoke", APIKey: model.NewSecret(key)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logtest.Buffer{}
	o := agent.Options{Goal: "log in with password hunter2", Model: m, Device: newPhone(t),
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	ctx := newExpiring()
	wait := returnsSoon(t, ctx, o)
	// The deadline passes once the model has been silent for a while, however long the task
	// took to ask it.
	const silent = 300 * time.Millisecond
	waitFor(t, "the model silent for a while", func() bool {
		reqs := srv.Requests()
		return len(reqs) == 1 && time.Since(reqs[0].Received) >= silent
	})
	ctx.expire()
	task := wait()
	returned := time.Now()

	wantStatus(t, task, agent.StatusAborted)
	reqs := srv.Requests()
	if !task.TimedOut || !task.ModelTimedOut || len(reqs) != 1 {
		t.Fatalf("timed out %t, waiting for the model %t, %d requests", task.TimedOut, task.ModelTimedOut, len(reqs))
	}
	came := reqs[0].Received
	// The call waited from before its request came to the deadline or later, and no longer
	// than the task ran; shown to the nearest 100ms.
	dl, _ := ctx.Deadline()
	if m := regexp.MustCompile(`\(its call waited ([0-9.]+m?s)\)`).FindStringSubmatch(task.Error); m == nil {
		t.Errorf("error %q does not say how long the call waited", task.Error)
	} else if waited, err := time.ParseDuration(m[1]); err != nil || waited < dl.Sub(came)-50*time.Millisecond ||
		waited > returned.Sub(task.Started)+50*time.Millisecond {
		t.Errorf("the call waited %s by the error, but its request came %s before the deadline and the task ran %s",
			m[1], dl.Sub(came), returned.Sub(task.Started))
	}
	if rest := timedOutAfter(t, ctx, task, task.Error); !strings.HasPrefix(rest, " waiting for the model") {
		t.Errorf("error %q does not say it waited for the model", task.Error)
	}
	for _, want := range []string{`model "slowpoke" at ` + srv.BaseURL(),
		"check that the model server is up", "more time will not help", "a faster model"} {
		if !strings.Contains(task.Error, want) {
			t.Errorf("error %q lacks %q", task.Error, want)
		}
	}
	if strings.Contains(task.Error, "give the task more time") {
		t.Errorf("error %q: more time does not help a hung server", task.Error)
	}
	if !strings.HasPrefix(task.Markdown(), "## ⏱️ Agent task timed out\n") {
		t.Errorf("report:\n%s", task.Markdown())
	}

	log := logs.String()
	warn, end := logs.Line("the model did not answer"), logs.Line("agent task ended")
	if !strings.Contains(warn, "level=WARN") || !strings.Contains(end, "level=INFO") || !strings.Contains(end, "timed_out=true") ||
		!strings.Contains(end, "status=aborted") {
		t.Errorf("log:\n%s", log)
	}
	if strings.Contains(log, key) || strings.Contains(log, "hunter2") {
		t.Errorf("the log holds the key or the goal:\n%s", log)
	}
}
