package test

import (
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// An ai_action that does not finish (its model loops: the loop detector stops it) is an error
// result that still carries what it did, as docs/agent.md says: the failure's text first, then
// message, prompt, status, actionTaken and actions as structured content mirrored as JSON text.
// The model's failure is not the device's: no driver_error, as run_agent_task's has none.
func TestAIActionThatFailsStillAnswersItsActions(t *testing.T) {
	// The clock on the home screen does nothing when tapped: the model taps it again and again.
	f, _, serial := agentFarm(t,
		call("plan", `{"steps":[{"title":"Open the clock"}]}`),
		call("tap_xy", `{"x":0.5,"y":0.13}`),
		call("tap_xy", `{"x":0.5,"y":0.13}`),
		call("tap_xy", `{"x":0.5,"y":0.13}`),
	)
	c := f.Client("agent")
	res, err := farmtest.TryCall(t, c, "ai_action", args("serial", serial, "prompt", "open the clock"))
	require.NoError(t, err)
	require.True(t, res.IsError, farmtest.Text(res))
	require.Len(t, res.Content, 2, "the failure's text, then the result as JSON: %s", farmtest.Text(res))
	first, ok := res.Content[0].(mcpgo.TextContent)
	require.True(t, ok, "the first content is the failure's text")
	contains(t, first.Text, "ai_action on "+serial+" failed: ", "loop detected")
	assert.NotContains(t, first.Text, "driver_error", "a looping model is not the device's failure: no code, as run_agent_task's")

	var got struct {
		Prompt, Status, ActionTaken, Error string
		Actions                            []struct{ Tool string }
	}
	farmtest.Structured(t, res, &got) // also checks the JSON text mirrors it
	assert.Equal(t, "open the clock", got.Prompt)
	assert.Equal(t, "failed", got.Status)
	assert.True(t, strings.HasPrefix(got.Error, "loop detected"), got.Error)
	if assert.Len(t, got.Actions, 2, "the two taps that ran (the third is not run)") {
		assert.Equal(t, "tap_xy", got.Actions[0].Tool)
	}
	assert.Contains(t, got.ActionTaken, `tap_xy {"x":0.5,"y":0.13}`)

	// Its record keeps no screenshots, and asking for them says which tool keeps them.
	var latest struct{ TaskID, Tool string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true)), &latest)
	require.Equal(t, "ai_action", latest.Tool)
	shots, err := farmtest.TryCall(t, c, "get_task_result", args("taskId", latest.TaskID, "screenshotsOfStep", 1))
	require.NoError(t, err)
	require.True(t, shots.IsError)
	contains(t, farmtest.Text(shots), "(ai_action) has no steps with screenshots: only run_agent_task keeps them")
}

// A run_agent_task that ended before it had a plan has no steps: asking for a step's
// screenshots says so, not that only run_agent_task keeps them.
func TestAgentTaskWithoutStepsSaysSoForScreenshots(t *testing.T) {
	f, _, serial := agentFarm(t, modelsim.Say("no plan"), modelsim.Say("still no plan"), modelsim.Say("none"))
	c := f.Client("agent")
	res, err := farmtest.TryCall(t, c, "run_agent_task", args("serial", serial, "goal", "open the clock"))
	require.NoError(t, err)
	require.True(t, res.IsError, farmtest.Text(res))
	var out struct{ TaskID string }
	farmtest.Structured(t, res, &out)
	shots, err := farmtest.TryCall(t, c, "get_task_result", args("taskId", out.TaskID, "screenshotsOfStep", 1))
	require.NoError(t, err)
	require.True(t, shots.IsError)
	contains(t, farmtest.Text(shots), "(run_agent_task) has no steps, so no step screenshots: it ended before it had a plan")
}

// ai_query's model failing (an HTTP error) is not the device's: no driver_error, whose runbook
// says to take the device out of service; no code, as run_agent_task's model failures.
func TestAIQueryModelFailureIsNotTheDevices(t *testing.T) {
	f, _, serial := agentFarm(t, modelsim.Fail(400, "the model refused the request"))
	res, err := farmtest.TryCall(t, f.Client("agent"), "ai_query", args("serial", serial, "prompt", "what is on the screen?"))
	require.NoError(t, err)
	require.True(t, res.IsError, farmtest.Text(res))
	contains(t, farmtest.Text(res), "ai_query on "+serial+" failed: ", "the model refused the request")
	assert.NotContains(t, farmtest.Text(res), "driver_error")
}
