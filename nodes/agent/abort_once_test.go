package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// The node's scheduler aborts with a cause that already says "aborted by …" (abort_task of a
// session): the task's error says it once, not "aborted: aborted by …".
func TestAbortCauseThatSaysAbortedIsSaidOnce(t *testing.T) {
	t.Parallel()
	r := newRig(t, plan(step{Title: "Wait"}), modelsim.Turn{Delay: stuck, Text: "late"})
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	wait := returnsSoon(t, ctx, r.options("Open Settings"))
	waitFor(t, "the step's request", func() bool { return len(r.srv.Requests()) == 2 })
	cancel(errors.New("aborted by anonymous (qaV) session s1"))
	task := wait()

	wantStatus(t, task, agent.StatusAborted)
	if task.Error != "aborted by anonymous (qaV) session s1" {
		t.Errorf("error %q", task.Error)
	}
	if len(task.Steps) != 1 || task.Steps[0].Error != task.Error {
		t.Errorf("steps %+v", task.Steps)
	}
}
