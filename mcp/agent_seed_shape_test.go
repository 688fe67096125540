package mcp_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// The phone-agent seed's channel A answers run_agent_task with its Markdown report ({id,
// result: Markdown 报告}); Corral keeps the structured result and its JSON copy after it. QA:
// content[0] was the JSON, the report content[1].
func TestRunAgentTaskAnswersItsMarkdownReportFirst(t *testing.T) {
	f, serial := agentFarm(t,
		modelTurn("plan", `{"steps":[{"title":"Look"}]}`),
		modelTurn("finished", `{"content":"looked"}`),
	)
	c := sessionClient(f, "seed")
	res := farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "look"})
	require.Len(t, res.Content, 2, farmtest.Text(res))
	report, ok := mcpgo.AsTextContent(res.Content[0])
	require.True(t, ok, "content[0] is no text: %#v", res.Content[0])
	assert.True(t, strings.HasPrefix(report.Text, "## ✅ Agent task finished"), "content[0] is not the report: %q", report.Text)
	assert.Contains(t, report.Text, "**Goal**: look")

	mirror, ok := mcpgo.AsTextContent(res.Content[1])
	require.True(t, ok, "content[1] is no text: %#v", res.Content[1])
	var copied struct {
		TaskID     string `json:"taskId"`
		Conclusion string `json:"conclusion"`
	}
	require.NoError(t, json.Unmarshal([]byte(mirror.Text), &copied), "content[1] is not the JSON copy: %q", mirror.Text)
	assert.Equal(t, "looked", copied.Conclusion)
	var structured struct {
		TaskID string `json:"taskId"`
	}
	farmtest.Structured(t, res, &structured)
	assert.Equal(t, copied.TaskID, structured.TaskID, "structuredContent stays")
}

// A task that timed out says so first, then its report, then the JSON copy.
func TestTimedOutAgentTaskReportBeforeItsJSON(t *testing.T) {
	f, serial := agentFarm(t, thinkingLong...)
	c := sessionClient(f, "seed")
	res := farmtest.Call(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "think long", "timeoutMs": 1000})
	require.True(t, res.IsError, farmtest.Text(res))
	require.Len(t, res.Content, 3, farmtest.Text(res))
	report, _ := mcpgo.AsTextContent(res.Content[1])
	assert.True(t, strings.HasPrefix(report.Text, "## "), "content[1] is not the report: %q", report.Text)
	mirror, _ := mcpgo.AsTextContent(res.Content[2])
	assert.True(t, json.Valid([]byte(mirror.Text)), "content[2] is not the JSON copy: %q", mirror.Text)
	assert.NotNil(t, res.StructuredContent)
}

// Without a progress token the seed's server sends the agent's progress as logging messages
// of "level: info, logger: phone-agent". QA: the logger was "corral".
func TestAgentProgressLoggerIsPhoneAgent(t *testing.T) {
	f, serial := agentFarm(t,
		modelTurn("plan", `{"steps":[{"title":"Look"}]}`),
		modelTurn("finished", `{"content":"looked"}`),
	)
	c := sessionClient(f, "seed")
	var mu sync.Mutex
	loggers := map[string]string{} // line → logger
	c.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method != string(mcpgo.MethodNotificationMessage) {
			return
		}
		line, _ := n.Params.AdditionalFields["data"].(string)
		logger, _ := n.Params.AdditionalFields["logger"].(string)
		mu.Lock()
		loggers[line] = logger
		mu.Unlock()
	})
	farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "look"})
	plan := func() (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		for line, logger := range loggers {
			if strings.Contains(line, "📋 Plan made (1 step)") {
				return logger, true
			}
		}
		return "", false
	}
	farmtest.Eventually(t, 10*time.Second, func() bool { _, ok := plan(); return ok }, "the plan among the logging messages")
	logger, _ := plan()
	assert.Equal(t, "phone-agent", logger)
	mu.Lock()
	defer mu.Unlock()
	for line, l := range loggers {
		assert.Equal(t, "phone-agent", l, "the logger of %q", line)
	}
}
