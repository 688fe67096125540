package mcp_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// QA: an agent task its node failed (shut down under it: failed, interrupted) answered a report
// headed "⏹️ Agent task aborted", status aborted, though its record's outcome was failed. The
// same cause kind ends a task whose device goes away (failed, disconnected), which a test can
// bring about on the real Android path: the report, its status and the record all say failed.
func TestAgentTaskFailedUnderItSaysFailedEverywhere(t *testing.T) {
	if _, err := exec.LookPath("adb"); err != nil {
		t.Skip("needs adb (make test installs it)")
	}
	srv := modelsim.New(modelTurn("plan", `{"steps":[{"title":"Wait"}]}`), modelsim.Turn{Delay: time.Minute, Text: "too late"})
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
	farmtest.Eventually(t, 30*time.Second, func() bool { return len(srv.Requests()) >= 2 }, "the agent waits for the model in its step")
	adb.Stop()
	var res farmtest.Answer
	select {
	case res = <-answer:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent task of the unplugged phone was never answered")
	}
	got := res.Get(t)
	text := farmtest.Text(got)
	var out struct{ TaskID, Status string }
	farmtest.Structured(t, got, &out)
	if !got.IsError || out.Status != "failed" || !strings.Contains(text, "## ❌ Agent task failed") || strings.Contains(text, "Agent task aborted") {
		t.Fatalf("status %q, answer:\n%s", out.Status, text)
	}
	v := viewOf(t, farmtest.MustCall(t, c, "get_task_result", map[string]any{"taskId": out.TaskID}))
	if v.Outcome != "failed" || v.Status != "failed" {
		t.Errorf("record: outcome %q, status %q", v.Outcome, v.Status)
	}
}
