package tools_test

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// silentModel is a model client whose server takes requests and answers none before the
// client leaves.
func silentModel(t *testing.T) (model.Chatter, *modelsim.Server) {
	t.Helper()
	srv := modelsim.New(modelsim.Turn{Delay: time.Hour, Text: "late"})
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "silent", APIKey: model.NewSecret("sk-never-logged")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}

// askedDeadline is a context whose deadline is d from now, and which ends at it once srv has
// been asked: a loaded machine that takes longer than d to reach the model still times out
// waiting for it, as these tests mean, not before it.
type askedDeadline struct {
	context.Context
	at   time.Time
	done chan struct{}
}

func deadlineOnceAsked(t *testing.T, srv *modelsim.Server, d time.Duration) context.Context {
	t.Helper()
	c := &askedDeadline{Context: context.Background(), at: time.Now().Add(d), done: make(chan struct{})}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if time.Now().After(c.at) && len(srv.Requests()) > 0 {
					close(c.done)
					return
				}
			}
		}
	}()
	return c
}

func (c *askedDeadline) Deadline() (time.Time, bool) { return c.at, true }
func (c *askedDeadline) Done() <-chan struct{}       { return c.done }
func (c *askedDeadline) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// agentOp runs op name of a node configured with m and log on a simulated phone.
func agentOp(t *testing.T, ctx context.Context, m model.Chatter, log *slog.Logger, name, args string) (tools.Output, error) {
	t.Helper()
	p := sim.New("sim-agent", sim.WithSize(540, 1200))
	t.Cleanup(func() { _ = p.Close() })
	ops := tools.DefaultOpsWith(tools.OpsConfig{Model: m, Log: log})
	return ops[name].Run(ctx, &tools.Task{ID: "t_agent1", Driver: p, Args: []byte(args)})
}

// run_agent_task whose timeoutMs passes while the model has not answered says so: the model, at
// which endpoint, had not answered when the caller's timeoutMs ran out, and a larger timeoutMs
// helps (QA pass Y: it said to check a hung server, of a model that answers in 1.5 s); its
// report's heading says it timed out; the node's log says how it ended, with the task and
// device but neither the goal nor the key. (The node's deadline: TestAgentTaskTimedOutByTheNodeWaitingForTheModel.)
func TestAgentTaskTimedOutWaitingForTheModel(t *testing.T) {
	m, srv := silentModel(t)
	endpoint := srv.BaseURL()
	logs := &logtest.Buffer{}
	out, err := agentOp(t, context.Background(), m, slog.New(slog.NewTextHandler(logs, nil)), "run_agent_task",
		`{"goal":"log in with password hunter2","timeoutMs":5000}`) // ample to reach the model under load
	if err != nil {
		t.Fatal(err)
	}
	fail := out.Failure
	if fail == nil || !errors.Is(fail, context.DeadlineExceeded) {
		t.Fatalf("failure %v: the task timed out", fail)
	}
	// Its timeoutMs, less the moment the task took to start (the agent's tests check the
	// exact figure against the deadline).
	if m := regexp.MustCompile(`^timed out after ([0-9.]+s) waiting for the model`).FindStringSubmatch(fail.Error()); m == nil {
		t.Errorf("failure %q does not say it timed out waiting for the model", fail)
	} else if d, _ := time.ParseDuration(m[1]); d < 4500*time.Millisecond || d > 5*time.Second {
		t.Errorf("failure %q: timed out after %s, want timeoutMs's 5s", fail, m[1])
	}
	for _, want := range []string{endpoint + " had not answered when the task's timeoutMs of 5s ran out", "pass a larger timeoutMs"} {
		if !strings.Contains(fail.Error(), want) {
			t.Errorf("failure %q lacks %q", fail, want)
		}
	}
	if strings.Contains(fail.Error(), "check that the model server is up") || strings.Contains(fail.Error(), "hung") {
		t.Errorf("failure %q: the caller's timeoutMs ended the wait, not a hung server", fail)
	}
	if !strings.HasPrefix(out.Text, "## ⏱️ Agent task timed out") {
		t.Errorf("report:\n%s", out.Text)
	}
	end := logs.Line("agent task ended")
	for _, want := range []string{"level=INFO", "task=t_agent1", "serial=sim-agent", "timed_out=true"} {
		if !strings.Contains(end, want) {
			t.Errorf("log line %q lacks %q", end, want)
		}
	}
	if w := logs.Line("the model did not answer"); !strings.Contains(w, "level=WARN") {
		t.Errorf("log:\n%s", logs)
	}
	if l := logs.String(); strings.Contains(l, "hunter2") || strings.Contains(l, "sk-never-logged") {
		t.Errorf("the log holds the goal or the key:\n%s", l)
	}
}

// run_agent_task without a timeoutMs, whose node's deadline passes while the model is silent,
// says the model did not answer and to check its server (a hung one needs a restart), not to
// pass a larger timeoutMs: the node's deadline is long past any answer a working model gives.
func TestAgentTaskTimedOutByTheNodeWaitingForTheModel(t *testing.T) {
	m, srv := silentModel(t)
	endpoint := srv.BaseURL()
	out, err := agentOp(t, deadlineOnceAsked(t, srv, 1500*time.Millisecond), m, nil, "run_agent_task", `{"goal":"look"}`) // the node's deadline
	if err != nil {
		t.Fatal(err)
	}
	fail := out.Failure
	if fail == nil || !strings.Contains(fail.Error(), "waiting for the model") {
		t.Fatalf("failure %v: the task timed out waiting for the model", fail)
	}
	for _, want := range []string{endpoint, "check that the model server is up", "a hung server needs a restart"} {
		if !strings.Contains(fail.Error(), want) {
			t.Errorf("failure %q lacks %q", fail, want)
		}
	}
	if strings.Contains(fail.Error(), "timeoutMs") {
		t.Errorf("failure %q: the caller gave no timeoutMs", fail)
	}
}

// ai_action whose deadline passes while the model is silent fails as timed out, saying so in
// words rather than as a bare context error.
func TestAIActionTimedOutWaitingForTheModel(t *testing.T) {
	m, srv := silentModel(t)
	endpoint := srv.BaseURL()
	out, err := agentOp(t, deadlineOnceAsked(t, srv, 1500*time.Millisecond), m, nil, "ai_action", `{"prompt":"tap the search box"}`)
	if err != nil {
		t.Fatalf("%v: a timed-out ai_action answers what it did, its failure says why", err)
	}
	fail := out.Failure
	if fail == nil || !errors.Is(fail, context.DeadlineExceeded) || !strings.HasPrefix(fail.Error(), "ai_action timed out after") ||
		!strings.Contains(fail.Error(), "waiting for the model") || !strings.Contains(fail.Error(), endpoint) {
		t.Fatalf("failure %v", fail)
	}
	if res := out.Data.(tools.AIActionResult); !strings.HasPrefix(res.Message, "timed out after 0 action(s)") {
		t.Errorf("message %q", res.Message)
	}
}

// A model that gives tap_xy an argument it does not take is refused each time; the task ends
// as one whose model called tools wrongly, not as a loop.
func TestAgentTaskWithRefusedArguments(t *testing.T) {
	junk := modelsim.Call(modelsim.ToolCall{Name: "tap_xy", Arguments: `{"x":0.5,"y":0.5,"junk":"J"}`})
	srv := modelsim.New(modelsim.Call(modelsim.ToolCall{Name: "plan", Arguments: `{"steps":[{"title":"Tap"}]}`}), junk, junk, junk, junk)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "modelsim"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := agentOp(t, context.Background(), m, nil, "run_agent_task", `{"goal":"tap the middle"}`)
	if err != nil {
		t.Fatal(err)
	}
	if out.Failure == nil || !strings.Contains(out.Failure.Error(), "called tools wrongly 3 turns in a row") {
		t.Fatalf("failure %v\n%s", out.Failure, out.Text)
	}
	if !strings.Contains(out.Text, `unknown field \"junk\"`) && !strings.Contains(out.Text, `unknown field "junk"`) {
		t.Errorf("report:\n%s", out.Text)
	}
}
