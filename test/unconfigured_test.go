package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// An AI tool on a node without a model is refused with code unconfigured, the node's own
// signal (no longer its error text, which the gateway used to search for OPENAI_BASE_URL):
// the answer leads with the cause and what to set, and the task's record and the metrics show
// a refusal coded unconfigured, not unsupported.
func TestNodeWithoutModelIsUnconfigured(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")

	res := farmtest.Call(t, c, "ai_query", args("serial", serial, "prompt", "what is on the screen?"))
	require.True(t, res.IsError, farmtest.Text(res))
	text := farmtest.Text(res)
	lead := fmt.Sprintf("ai_query on %s refused (unconfigured): ai_query cannot run on %s: its node n1 lacks configuration", serial, serial)
	require.True(t, strings.HasPrefix(text, lead), "the answer does not lead with the cause:\n%s", text)
	contains(t, text, "OPENAI_BASE_URL", "OPENAI_MODEL", "no other device in this farm can")

	var rec struct{ Outcome, Code, Error string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true)), &rec)
	assert.Equal(t, "refused", rec.Outcome, "the task's record")
	assert.Equal(t, "unconfigured", rec.Code, "the task's record")
	contains(t, rec.Error, "OPENAI_BASE_URL")
	assert.Equal(t, 1.0, metric(t, f, `corral_tasks_total{outcome="refused",tool="ai_query"}`), "the node's task metrics")
	assert.Equal(t, 1.0, metric(t, f, `corral_mcp_tool_calls_total{outcome="refused",tool="ai_query"}`), "the gateway's call metrics")
}
