package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// nodeStopping is a cancellation cause that fails a task (its Failing method says so), as the
// node's scheduler gives a task the node stops under it.
type nodeStopping struct{}

func (nodeStopping) Error() string {
	return "node n1 is shutting down and stopped run_agent_task on p1; what it did to the device is unknown: peek before going on"
}
func (nodeStopping) Failing() bool { return true }

// QA: a node shut down during an agent task recorded it failed (code interrupted), yet the
// report's heading said "⏹️ Agent task aborted" and its status aborted. A cause that fails the
// task ends it failed, with the cause's words, heading and status alike.
func TestCancelledByAFailingCauseIsFailed(t *testing.T) {
	t.Parallel()
	r := newRig(t, plan(step{Title: "Wait"}, step{Title: "Then this"}), modelsim.Turn{Delay: stuck, Text: "late"})
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	wait := returnsSoon(t, ctx, r.options("Open Settings"))
	waitFor(t, "the step's request", func() bool { return len(r.srv.Requests()) == 2 })
	cancel(nodeStopping{})
	task := wait()

	wantStatus(t, task, agent.StatusFailed)
	if task.Error != (nodeStopping{}).Error() {
		t.Errorf("error %q", task.Error)
	}
	wantStepStatuses(t, task, agent.StepFailed, agent.StepSkipped)
	report := task.Markdown()
	if !strings.HasPrefix(report, "## ❌ Agent task failed") || !strings.Contains(report, "**Status**: failed") || strings.Contains(report, "abort") {
		t.Errorf("report:\n%s", report)
	}
}
