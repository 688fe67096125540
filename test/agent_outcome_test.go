package test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// agentEnd is what a test reads of an agent task that did not finish: its result and record.
type agentEnd struct {
	TaskID, Status, Error string
}

// failedAgentTask runs an agent task that does not finish and checks that it is a failed task
// everywhere: an isError result that says why, with the agent's structured result and its
// Markdown report; a record with outcome; the node's and the gateway's metrics counting it.
func failedAgentTask(t *testing.T, f *farmtest.Farm, c *client.Client, a map[string]any, outcome, status string, says ...string) agentEnd {
	t.Helper()
	res, err := farmtest.TryCall(t, c, "run_agent_task", a)
	require.NoError(t, err)
	text := farmtest.Text(res)
	require.True(t, res.IsError, "an agent task that %s answered as a success: %s", status, text)
	var out agentEnd
	farmtest.Structured(t, res, &out)
	assert.Equal(t, status, out.Status)
	require.NotEmpty(t, out.TaskID)
	contains(t, text, says...)
	contains(t, text, "Agent task", "**Goal**") // the Markdown report still answers

	rec := farmtest.MustCall(t, c, "get_task_result", args("taskId", out.TaskID))
	var r struct{ Status, Outcome, Error string }
	farmtest.Structured(t, rec, &r)
	assert.Equal(t, outcome, r.Outcome, "the task's record")
	contains(t, r.Error, says...)
	contains(t, farmtest.Text(rec), `"status":"`+status+`"`) // the agent's result is kept
	assert.Equal(t, 1.0, metric(t, f, fmt.Sprintf(`corral_tasks_total{outcome=%q,tool="run_agent_task"}`, outcome)), "the node's task metrics")
	return out
}

// QA: a failed agent task was recorded as succeeded (its result said failed, but no isError,
// `corral tasks` showed it succeeded, the metrics counted it succeeded). A task whose model is
// unreachable, one whose model gives up on a step, one past its timeoutMs and one aborted are
// failed, failed, timed out and aborted everywhere, and each still answers its report.
func TestFailedAgentTaskIsAFailedTask(t *testing.T) {
	t.Run("model unreachable", func(t *testing.T) {
		f, srv, serial := agentFarm(t)
		srv.Close() // nothing answers at the model's address
		failedAgentTask(t, f, f.Client("agent"), args("serial", serial, "goal", "x"), "failed", "failed", "planning", "model")
	})
	t.Run("model gives up", func(t *testing.T) {
		f, _, serial := agentFarm(t,
			call("plan", `{"steps":[{"title":"Open the Wallet app"}]}`),
			call("step_done", `{"status":"failed","summary":"there is no Wallet app on this phone"}`),
		)
		failedAgentTask(t, f, f.Client("agent"), args("serial", serial, "goal", "pay"), "failed", "failed", "no Wallet app")
	})
	// The plan's call must end well within timeoutMs, on a loaded machine too, for the step's
	// call to be the one the deadline finds waiting (at 1.5 s a slow plan call was; at 5 s, with
	// the machine at load 20, the first look at the screen had not ended).
	t.Run("timeoutMs", func(t *testing.T) {
		f, _, serial := agentFarm(t,
			call("plan", `{"steps":[{"title":"Think"}]}`),
			modelsim.Turn{Delay: time.Minute, Text: "too late"},
		)
		failedAgentTask(t, f, f.Client("agent"), args("serial", serial, "goal", "think", "timeoutMs", 15000), "timed_out", "aborted", "timed out",
			"waiting for the model", "when the task's timeoutMs of 15s ran out", "pass a larger timeoutMs") // the seed's advice: the caller's budget cut the wait
	})
	t.Run("aborted", func(t *testing.T) {
		f, _, serial := agentFarm(t,
			call("plan", `{"steps":[{"title":"Think"}]}`),
			modelsim.Turn{Delay: time.Minute, Text: "too late"},
		)
		c := f.Client("agent")
		answer := farmtest.Go(t, c, "run_agent_task", args("serial", serial, "goal", "think"))
		farmtest.Eventually(t, 10*time.Second, func() bool {
			r, err := farmtest.TryCall(t, c, "abort_task", args("serial", serial))
			var out struct{ Aborted []string }
			return err == nil && !r.IsError && farmtest.Decode(r, &out) == nil && len(out.Aborted) == 1
		}, "abort_task aborts the agent task")
		a := <-answer
		res := a.Get(t)
		require.True(t, res.IsError, farmtest.Text(res))
		var out agentEnd
		farmtest.Structured(t, res, &out)
		assert.Equal(t, "aborted", out.Status)
		contains(t, farmtest.Text(res), "aborted by", "Agent task")
		var r struct{ Outcome string }
		farmtest.Structured(t, farmtest.MustCall(t, c, "get_task_result", args("taskId", out.TaskID)), &r)
		assert.Equal(t, "aborted", r.Outcome)
		assert.Equal(t, 1.0, metric(t, f, `corral_tasks_total{outcome="aborted",tool="run_agent_task"}`))
	})
}
