package actors_test

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// QA: an agent task on an Android phone whose adb server went away mid-task was answered
// failed (disconnected) with no report, and its record kept no steps, so it could not be
// exported. The agent presses HOME, then waits for a model that does not answer; the node's
// private adb server is stopped: the answer and the record carry the agent's partial result
// (its plan and the HOME it pressed), failed with code disconnected. Its first line says how
// far the agent got, as after an abort, not a bare "; device X" after the cause.
func TestAgentTaskOfAnUnpluggedPhoneKeepsWhatItDid(t *testing.T) {
	if _, err := exec.LookPath("adb"); err != nil {
		t.Skip("needs adb (make test installs it)")
	}
	srv := modelsim.New(
		modelsim.Call(modelsim.ToolCall{Name: "plan", Arguments: `{"steps":[{"title":"Go home, then wait"}]}`}),
		modelsim.Call(modelsim.ToolCall{Name: "home", Arguments: `{}`}),
		modelsim.Turn{Delay: time.Minute, Text: "too late"},
	)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Model: m})
	adb, devs := f.StartAndroid("n1", 1)
	serial := devs[0].Serial()
	farmtest.Eventually(t, 15*time.Second, func() bool { e, _ := f.Gateway().Client.Device(serial); return e.State == "online" }, "%s online", serial)
	c := f.Client("agent")

	answer := farmtest.Go(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "wait"})
	// The agent's steps up to its wait are the node's own work on the simulated phone (a look
	// at its screen for each model call): 10 to 16 s at load ~11 under -race, past 30 s at load
	// ~25. So they are waited for as long as the call may last (farmtest.TryCall's bound): a
	// task that ends first is answered, and fails the wait at once.
	waiting := make(chan struct{})
	go func() {
		defer close(waiting)
		for len(srv.Requests()) < 3 && t.Context().Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
	}()
	select {
	case <-waiting:
	case res := <-answer:
		t.Fatalf("the agent task ended before it pressed HOME and waited for the model: %s", farmtest.Text(res.Get(t)))
	}
	adb.Stop()

	var res farmtest.Answer
	select {
	case res = <-answer:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent task of the unplugged phone was never answered")
	}
	got := res.Get(t)
	text := farmtest.Text(got)
	if !got.IsError || !strings.Contains(text, "disconnected") || !strings.Contains(text, "Agent task") {
		t.Fatalf("want a failed answer that says the phone disconnected, with the report: %s", text)
	}
	first, _, _ := strings.Cut(text, "\n")
	if bare := regexp.MustCompile(`; device ` + regexp.QuoteMeta(serial) + ` \[task `); bare.MatchString(first) {
		t.Errorf("the failure ends in a bare device name: %s", first)
	}
	if want := "; device " + serial + ": the agent stopped after 0 of 1 plan steps"; !strings.Contains(first, want) {
		t.Errorf("the failure does not say how far the agent got (%q): %s", want, first)
	}
	var out struct {
		TaskID     string
		TotalSteps int
		Actions    []struct{ Tool string }
	}
	farmtest.Structured(t, got, &out)
	if out.TotalSteps != 1 || len(out.Actions) != 1 || out.Actions[0].Tool != "home" {
		t.Fatalf("the answer lost what the agent did: %+v", out)
	}

	rec := farmtest.MustCall(t, c, "get_task_result", map[string]any{"taskId": out.TaskID})
	var r struct {
		Outcome, Code string
		Data          json.RawMessage
	}
	farmtest.Structured(t, rec, &r)
	if r.Outcome != "failed" || !strings.Contains(farmtest.Text(rec), `"tool":"home"`) {
		t.Fatalf("the record lost what the agent did: outcome %s, %s", r.Outcome, farmtest.Text(rec))
	}
}
