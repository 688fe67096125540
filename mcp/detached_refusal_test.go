package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// QA: run_agent_task with wait: false on a node without a model answered status "running"
// with a task id whose record was at once refused; it is refused at once instead, in the words
// of the waiting form.
func TestDetachedAgentTaskWithoutAModelIsRefused(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := sessionClient(f, "seed")

	waiting, err := farmtest.TryCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "open Settings"})
	require.NoError(t, err)
	require.True(t, waiting.IsError, farmtest.Text(waiting))

	res, err := farmtest.TryCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "open Settings", "wait": false})
	require.NoError(t, err)
	require.True(t, res.IsError, "refused, not running: %s", farmtest.Text(res))
	contains(t, farmtest.Text(res), "lacks configuration", "OPENAI_BASE_URL", "OPENAI_MODEL")
	require.NotContains(t, farmtest.Text(res), `"running"`)
}
