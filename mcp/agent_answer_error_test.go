package mcp_test

import (
	"encoding/json"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// The phone-agent seed's run_agent_task answers JSON that says "error": null when nothing
// went wrong ({"taskId": …, "status": "finished", …, "error": null}), as its task records do
// (415430d). Corral's answer did not carry the key: the node's JSON leaves an empty error out.
// Its structured result and JSON copy carry it, the started answer of wait: false too, and
// MustCall checks them against the tool's declared output schema.
func TestRunAgentTaskAnswersErrorNull(t *testing.T) {
	f, serial := agentFarm(t,
		modelTurn("plan", `{"steps":[{"title":"Look"}]}`),
		modelTurn("finished", `{"content":"looked"}`),
	)
	c := sessionClient(f, "seed")

	res := farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "look"})
	require.Len(t, res.Content, 2, farmtest.Text(res))
	mirror, ok := mcpgo.AsTextContent(res.Content[1])
	require.True(t, ok, "content[1] is no text: %#v", res.Content[1])
	requireErrorNull(t, "the answer's JSON copy", []byte(mirror.Text))
	structured, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	requireErrorNull(t, "its structured result", structured)

	started := farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "look again", "wait": false})
	mirror, ok = mcpgo.AsTextContent(started.Content[len(started.Content)-1])
	require.True(t, ok, "the answer of wait: false ends with no text: %#v", started.Content)
	requireErrorNull(t, "the answer of wait: false", []byte(mirror.Text))
}

// requireErrorNull fails the test unless the JSON object b has the key error, null.
func requireErrorNull(t *testing.T, what string, b []byte) {
	t.Helper()
	var keys map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &keys), "%s is no JSON object: %s", what, b)
	v, ok := keys["error"]
	require.True(t, ok, "%s has no error key: %s", what, b)
	assert.Equal(t, "null", string(v), "%s", what)
}
