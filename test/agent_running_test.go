package test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// QA: run_agent_task was refused as "Agent is already running" for a task that had already
// answered (the gateway read the registry, whose entry for the device is written later,
// coalesced). Agent tasks one right after another all run.
func TestAgentTaskRightAfterAgentTask(t *testing.T) {
	const n = 8
	var turns []modelsim.Turn
	for i := range n {
		turns = append(turns, call("plan", `{"steps":[{"title":"Look"}]}`), call("finished", fmt.Sprintf(`{"content":"looked %d"}`, i)))
	}
	f, _, serial := agentFarm(t, turns...)
	c := f.Client("agent")
	for i := range n {
		res, err := farmtest.TryCall(t, c, "run_agent_task", args("serial", serial, "goal", "look"))
		require.NoError(t, err)
		require.False(t, res.IsError, "task %d, right after the one before answered: %s", i+1, farmtest.Text(res))
		contains(t, farmtest.Text(res), fmt.Sprintf("looked %d", i))
	}
}

// A running agent task always refuses a second one on its device, in the seed's words: at
// once after the first was started (before the registry shows it), and when another gateway
// started it (its node refuses the second). Other tools on the device are not refused so.
func TestAgentTaskRunningRefusesASecond(t *testing.T) {
	f, _, serial := agentFarm(t,
		call("plan", `{"steps":[{"title":"Wait for the model"}]}`),
		modelsim.Turn{Delay: time.Minute, Text: "too late"},
		call("plan", `{"steps":[{"title":"Wait for the model"}]}`),
		modelsim.Turn{Delay: time.Minute, Text: "too late"},
	)
	c := f.Client("agent")
	first := farmtest.MustCall(t, c, "run_agent_task", args("serial", serial, "goal", "think long", "wait", false))
	var started struct{ TaskID string }
	farmtest.Structured(t, first, &started)
	second, err := farmtest.TryCall(t, c, "run_agent_task", args("serial", serial, "goal", "another"))
	require.NoError(t, err)
	require.True(t, second.IsError, farmtest.Text(second))
	contains(t, farmtest.Text(second), "Agent is already running. Please wait or call abort_task first.", started.TaskID)
	farmtest.MustCall(t, c, "abort_task", args("taskId", started.TaskID))

	// Another gateway's agent task: sent to the node past this gateway.
	id := broker.NewTaskID()
	other := make(chan broker.TaskResult, 1)
	go func() {
		res, _ := f.Gateway().Client.Run(t.Context(), broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: "run_agent_task",
			Args: []byte(`{"goal":"think long"}`), Holder: broker.Holder{Principal: "elsewhere"}, WaitMS: 10_000}, nil)
		other <- res
	}()
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task != nil && d.Task.ID == id
	}, "the other gateway's agent task running")
	res, err := farmtest.TryCall(t, c, "run_agent_task", args("serial", serial, "goal", "another"))
	require.NoError(t, err)
	require.True(t, res.IsError, farmtest.Text(res))
	contains(t, farmtest.Text(res), "Agent is already running. Please wait or call abort_task first.", "runs run_agent_task")
	farmtest.MustCall(t, c, "abort_task", args("serial", serial))
	assert.Equal(t, broker.OutcomeAborted, (<-other).Outcome)
}
