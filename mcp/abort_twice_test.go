package mcp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// QA: two abort_task calls at once both answered "Task aborted: t_…" of one agent task: its
// node listed the task for each abort until it had ended. Only one claims it now; the other
// says it is being aborted already (or, once it ended, that nothing runs), never that it
// aborted it. Three tasks, for the two calls to meet the task still ending.
func TestTwoAbortsAtOnceClaimTheTaskOnce(t *testing.T) {
	wait := modelsim.Turn{Delay: time.Minute, Text: "too late"}
	srv := modelsim.New(wait, wait, wait)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Model: m, Quiet: true})
	owner, _ := taggedClient(t, f, "corral-run")
	other := f.Client("someone")
	for _, d := range f.Devices() {
		id := startDetached(t, owner, d.Serial, "think long")
		farmtest.Eventually(t, 20*time.Second, func() bool {
			got, ok := f.Gateway().Client.Device(d.Serial)
			return ok && got.Task != nil && got.Task.ID == id
		}, "the registry shows the agent task running")

		mine := farmtest.Go(t, owner, "abort_task", nil)
		byID := farmtest.Go(t, other, "abort_task", map[string]any{"taskId": id})
		var claimed int
		for who, answer := range map[string]<-chan farmtest.Answer{"abort_task {}": mine, "abort_task {taskId}": byID} {
			var out struct {
				Message string
				Aborted []string
			}
			farmtest.Structured(t, (<-answer).Get(t), &out)
			t.Logf("%s: %v %s", who, out.Aborted, out.Message)
			if len(out.Aborted) > 0 {
				claimed++
				assert.Equal(t, []string{id}, out.Aborted, "%s: %s", who, out.Message)
				continue
			}
			// Not "Task aborted: …"; "already being aborted: nothing more to abort" is right.
			assert.NotRegexp(t, `^(Tasks? aborted|Aborted \d)`, out.Message, "%s", who)
			assert.Regexp(t, `already being aborted|No task is currently running|already ended: it was aborted`, out.Message, "%s", who)
		}
		assert.Equal(t, 1, claimed, "one of the two aborts claims task %s", id)
	}
}
