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

// run_agent_task with wait: false answers a task that has concluded nothing: no conclusion
// (QA: it said "started; poll get_task_result …" there, where a finished task has the model's
// final answer). What to do next is said in words before its JSON, as a finished task's report
// is, and those words hold no JSON, so the answer's only JSON is its result.
func TestStartedAgentTaskConcludesNothing(t *testing.T) {
	f, serial := agentFarm(t, thinkingLong...)
	c := sessionClient(f, "seed")

	res := farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "think long", "wait": false})
	var started map[string]any
	farmtest.Structured(t, res, &started)
	require.Equal(t, "running", started["status"], farmtest.Text(res))
	id, _ := started["taskId"].(string)
	require.NotEmpty(t, id)
	assert.NotContains(t, started, "conclusion", "a started task has concluded nothing")

	require.Len(t, res.Content, 2, farmtest.Text(res))
	words, ok := mcpgo.AsTextContent(res.Content[0])
	require.True(t, ok, "content[0] is no text: %#v", res.Content[0])
	assert.Contains(t, words.Text, "get_task_result with taskId "+id)
	assert.Contains(t, words.Text, "abort_task stops it")
	assert.NotContains(t, words.Text, "{", "the words hold no JSON")
	mirror, ok := mcpgo.AsTextContent(res.Content[1])
	require.True(t, ok, "content[1] is no text: %#v", res.Content[1])
	var again map[string]any
	require.NoError(t, json.Unmarshal([]byte(mirror.Text), &again), mirror.Text)
	assert.Equal(t, started, again, "content[1] mirrors the structured result")
	assert.Equal(t, 1, strings.Count(farmtest.Text(res), "{"), "one JSON object in the answer: %s", farmtest.Text(res))

	farmtest.MustCall(t, c, "abort_task", map[string]any{"serial": serial})
}
