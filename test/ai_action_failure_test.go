package test

import (
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// An ai_action that does not finish (its model loops: the loop detector stops it) is an error
// result that still carries what it did, as docs/agent.md says: the failure's text first, then
// message, prompt, status, actionTaken and actions as structured content mirrored as JSON text.
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
	contains(t, first.Text, "ai_action on "+serial+" failed", "loop detected")

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
}
