package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// QA pass Y: after run_agent_task then take_screenshot, get_latest_task answered the
// screenshot's record. The seed's get_latest_task is the latest agent task of the
// conversation, steps and all (each with "error": null, as the seed's); anyTool: true is the
// latest of any tool. A session with no agent task is told so in words, not as an error.
func TestGetLatestTaskIsTheLatestAgentTask(t *testing.T) {
	f, serial := agentFarm(t,
		modelTurn("plan", `{"steps":[{"title":"Look"}]}`),
		modelTurn("finished", `{"content":"looked"}`),
	)
	c := sessionClient(f, "seed")

	none := farmtest.Call(t, c, "get_latest_task", nil)
	require.False(t, none.IsError, "no agent task yet is an answer, not an error: %s", farmtest.Text(none))
	first, _ := mcpgo.AsTextContent(none.Content[0])
	assert.True(t, strings.HasPrefix(first.Text, "No agent task yet"), "content[0]: %q", first.Text)
	assert.Contains(t, first.Text, `"anyTool": true`)
	var rec struct {
		TaskID, Status, Message string
	}
	farmtest.Structured(t, none, &rec)
	assert.Equal(t, "none", rec.Status)
	assert.Empty(t, rec.TaskID)
	assert.Equal(t, first.Text, rec.Message)

	var agent struct {
		TaskID string `json:"taskId"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "look"}), &agent)
	require.NotEmpty(t, agent.TaskID)
	farmtest.MustCall(t, c, "take_screenshot", map[string]any{"serial": serial})

	latest := farmtest.MustCall(t, c, "get_latest_task", nil)
	var got struct {
		TaskID string            `json:"taskId"`
		Tool   string            `json:"tool"`
		Status string            `json:"status"`
		Error  *string           `json:"error"`
		Steps  []json.RawMessage `json:"steps"`
	}
	farmtest.Structured(t, latest, &got)
	assert.Equal(t, agent.TaskID, got.TaskID, "the latest agent task, not the screenshot after it")
	assert.Equal(t, "run_agent_task", got.Tool)
	assert.Equal(t, "finished", got.Status)
	var top map[string]any
	farmtest.Structured(t, latest, &top)
	assert.Contains(t, top, "error", "a task that went well has error null")
	assert.Nil(t, top["error"])
	require.Len(t, got.Steps, 1, farmtest.Text(latest))
	var step map[string]any
	require.NoError(t, json.Unmarshal(got.Steps[0], &step))
	assert.Contains(t, step, "error", "a step that went well has error null: %s", got.Steps[0])
	assert.Nil(t, step["error"])
	assert.Equal(t, "Look", step["title"])

	var anyTool struct {
		TaskID string `json:"taskId"`
		Tool   string `json:"tool"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", map[string]any{"anyTool": true}), &anyTool)
	assert.Equal(t, "take_screenshot", anyTool.Tool, "anyTool: the latest of any tool")
	assert.NotEqual(t, agent.TaskID, anyTool.TaskID)

	other := sessionClient(f, "other")
	farmtest.MustCall(t, other, "take_screenshot", map[string]any{"serial": serial})
	res := farmtest.Call(t, other, "get_latest_task", map[string]any{"includeSteps": false})
	require.False(t, res.IsError, farmtest.Text(res))
	farmtest.Structured(t, res, &rec)
	assert.Equal(t, "none", rec.Status, "a screenshot is no agent task")
	res = farmtest.Call(t, sessionClient(f, "third"), "get_latest_task", map[string]any{"anyTool": true})
	require.False(t, res.IsError, farmtest.Text(res))
	assert.True(t, strings.HasPrefix(farmtest.Text(res), "No task yet"), farmtest.Text(res))
}
