package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// Agent tasks as a session sees them, on a real farm whose node's model is scripted.

func modelTurn(name, args string) modelsim.Turn {
	return modelsim.Call(modelsim.ToolCall{Name: name, Arguments: args})
}

// thinkingLong is a task that plans one step, then waits a minute for the model.
var thinkingLong = []modelsim.Turn{
	modelTurn("plan", `{"steps":[{"title":"Wait for the model"}]}`),
	{Delay: time.Minute, Text: "too late"},
}

// agentFarm is a farm of one simulated phone whose node's model plays turns.
func agentFarm(t *testing.T, turns ...modelsim.Turn) (*farmtest.Farm, string) {
	t.Helper()
	srv := modelsim.New(turns...)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Model: m})
	return f, f.Devices()[0].Serial
}

// sessionClient is a client of a protocol revision with sessions, as the seed's clients are.
func sessionClient(f *farmtest.Farm, name string) *client.Client {
	return f.ClientWithProtocol(name, mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
}

// taskView is what get_task_result and get_latest_task tell of an agent task.
type taskView struct {
	TaskID         string `json:"taskId"`
	Goal           string `json:"goal"`
	Status         string `json:"status"`
	Outcome        string `json:"outcome"`
	Conclusion     string `json:"conclusion"`
	StepsCompleted *int   `json:"stepsCompleted"`
	TotalSteps     *int   `json:"totalSteps"`
	DurationMS     int64  `json:"durationMs"`
	Steps          []struct {
		Index  int    `json:"index"`
		Title  string `json:"title"`
		Status string `json:"status"`
	} `json:"steps"`
	Data map[string]any `json:"data"`
}

func viewOf(t *testing.T, res *mcpgo.CallToolResult) taskView {
	t.Helper()
	require.False(t, res.IsError, farmtest.Text(res))
	var v taskView
	farmtest.Structured(t, res, &v)
	return v
}

func startDetached(t *testing.T, c *client.Client, serial, goal string) string {
	t.Helper()
	var started struct {
		TaskID string `json:"taskId"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": goal, "wait": false}), &started)
	require.NotEmpty(t, started.TaskID)
	return started.TaskID
}

// QA: get_latest_task said "no task yet" while the session's agent task, started with
// wait: false, ran (the pointer was written only when the node answered); and get_task_result
// of a running agent task told neither its goal nor its steps nor the seed's status.
func TestRunningAgentTaskIsTheSessionsLatest(t *testing.T) {
	f, serial := agentFarm(t, thinkingLong...)
	c := sessionClient(f, "seed")
	id := startDetached(t, c, serial, "think long")

	v := viewOf(t, farmtest.MustCall(t, c, "get_latest_task", nil))
	assert.Equal(t, id, v.TaskID, "the latest task while it runs")
	assert.Equal(t, "think long", v.Goal)
	assert.Contains(t, []string{"planning", "executing"}, v.Status)
	assert.Equal(t, "running", v.Outcome)

	farmtest.Eventually(t, 20*time.Second, func() bool {
		v = viewOf(t, farmtest.MustCall(t, c, "get_task_result", map[string]any{"taskId": id}))
		return v.Status == "executing" && len(v.Steps) == 1
	}, "the running task executing its first step")
	assert.Equal(t, "Wait for the model", v.Steps[0].Title)
	assert.Equal(t, "running", v.Steps[0].Status)
	require.NotNil(t, v.TotalSteps)
	assert.Equal(t, 1, *v.TotalSteps)
	require.NotNil(t, v.StepsCompleted)
	assert.Equal(t, 0, *v.StepsCompleted)

	contains(t, farmtest.Text(farmtest.MustCall(t, c, "abort_task", nil)), "Task aborted: "+id)
	farmtest.Eventually(t, 20*time.Second, func() bool {
		v = viewOf(t, farmtest.MustCall(t, c, "get_latest_task", nil))
		return v.Outcome == "aborted"
	}, "the latest task's record, aborted")
	assert.Equal(t, id, v.TaskID)
	assert.Equal(t, "aborted", v.Status, "the seed's status")
}

// The record of an agent task that ended has the seed's fields at the top level (goal,
// status finished, conclusion, stepsCompleted, totalSteps, steps), and keeps Corral's
// (outcome succeeded, data) for the clients that read them.
func TestAgentTaskRecordHasTheSeedsFields(t *testing.T) {
	f, serial := agentFarm(t,
		modelTurn("plan", `{"steps":[{"title":"Look"}]}`),
		modelTurn("finished", `{"content":"looked"}`),
	)
	c := sessionClient(f, "seed")
	var ran struct {
		TaskID string `json:"taskId"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "look"}), &ran)

	for _, tool := range []string{"get_task_result", "get_latest_task"} {
		args := map[string]any{}
		if tool == "get_task_result" {
			args["taskId"] = ran.TaskID
		}
		v := viewOf(t, farmtest.MustCall(t, c, tool, args))
		assert.Equal(t, ran.TaskID, v.TaskID, tool)
		assert.Equal(t, "look", v.Goal, tool)
		assert.Equal(t, "finished", v.Status, tool)
		assert.Equal(t, "succeeded", v.Outcome, tool)
		assert.Equal(t, "looked", v.Conclusion, tool)
		require.NotNil(t, v.StepsCompleted, tool)
		require.NotNil(t, v.TotalSteps, tool)
		assert.Equal(t, 1, *v.StepsCompleted, tool)
		assert.Equal(t, 1, *v.TotalSteps, tool)
		require.Len(t, v.Steps, 1, tool)
		assert.Equal(t, "Look", v.Steps[0].Title, tool)
		assert.Equal(t, "success", v.Steps[0].Status, tool)
		assert.Equal(t, "look", v.Data["goal"], "%s: data stays", tool)

		args["includeSteps"] = false
		v = viewOf(t, farmtest.MustCall(t, c, tool, args))
		assert.Empty(t, v.Steps, "%s includeSteps false", tool)
		assert.Equal(t, "finished", v.Status, tool)
	}
}

// QA: a gateway restart lost the session's agent task: run_agent_task answered "Agent is
// already running" without its id, abort_task {} found nothing to abort and get_latest_task
// said "no task yet". The session's latest agent task is kept in the sessions KV.
func TestAgentTaskSurvivesGatewayRestartForItsSession(t *testing.T) {
	f, serial := agentFarm(t, thinkingLong...)
	c := sessionClient(f, "seed")
	id := startDetached(t, c, serial, "think long")
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task != nil && d.Task.ID == id
	}, "the registry showing the task")

	session := c.GetSessionId()
	require.NotEmpty(t, session)
	f.StopGateway()
	f.StartGateway()
	tr, err := transport.NewStreamableHTTP(f.Gateway().MCPURL, transport.WithSession(session))
	require.NoError(t, err)
	resumed := client.NewClient(tr, client.WithSession())
	require.NoError(t, resumed.Start(t.Context()))
	t.Cleanup(func() { _ = resumed.Close() })

	assert.Equal(t, id, viewOf(t, farmtest.MustCall(t, resumed, "get_latest_task", nil)).TaskID, "latest after the restart")
	again := farmtest.Call(t, resumed, "run_agent_task", map[string]any{"serial": serial, "goal": "another"})
	require.True(t, again.IsError, farmtest.Text(again))
	contains(t, farmtest.Text(again), "Agent is already running. Please wait or call abort_task first.", "task "+id)
	assert.Equal(t, id, viewOf(t, farmtest.MustCall(t, resumed, "get_latest_task", nil)).TaskID, "latest after a refused second task")

	contains(t, farmtest.Text(farmtest.MustCall(t, resumed, "abort_task", nil)), "Task aborted: "+id)
	farmtest.Eventually(t, 20*time.Second, func() bool {
		v := viewOf(t, farmtest.MustCall(t, resumed, "get_latest_task", nil))
		return v.TaskID == id && v.Outcome == "aborted"
	}, "the latest task's record, aborted")
}

// QA: without a progress token an agent task's progress went out as logging messages that
// mcp-go held back for a client that never set a level (its default is error). A client that
// set none gets them; one that set warning does not.
func TestAgentProgressAsLoggingMessagesWithoutASetLevel(t *testing.T) {
	f, serial := agentFarm(t,
		modelTurn("plan", `{"steps":[{"title":"Look"}]}`),
		modelTurn("finished", `{"content":"looked"}`),
		modelTurn("plan", `{"steps":[{"title":"Look"}]}`),
		modelTurn("finished", `{"content":"looked"}`),
	)
	logged := func(c *client.Client) func() []string {
		var mu sync.Mutex
		var lines []string
		c.OnNotification(func(n mcpgo.JSONRPCNotification) {
			if n.Method != string(mcpgo.MethodNotificationMessage) {
				return
			}
			if s, ok := n.Params.AdditionalFields["data"].(string); ok {
				mu.Lock()
				lines = append(lines, s)
				mu.Unlock()
			}
		})
		return func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), lines...)
		}
	}

	seed := sessionClient(f, "seed")
	seen := logged(seed)
	farmtest.MustCall(t, seed, "run_agent_task", map[string]any{"serial": serial, "goal": "look"})
	farmtest.Eventually(t, 10*time.Second, func() bool {
		return strings.Contains(strings.Join(seen(), "\n"), "📋 Plan made (1 step)")
	}, "the plan among the logging messages: %q", seen())

	quiet := sessionClient(f, "quiet")
	heard := logged(quiet)
	require.NoError(t, quiet.SetLevel(context.Background(), mcpgo.SetLevelRequest{Params: mcpgo.SetLevelParams{Level: mcpgo.LoggingLevelWarning}}))
	farmtest.MustCall(t, quiet, "run_agent_task", map[string]any{"serial": serial, "goal": "look"})
	farmtest.MustCall(t, quiet, "list_available_devices", nil) // a round trip after the task's last notification
	assert.Empty(t, heard(), "a client that set warning got info messages")
}

func contains(t *testing.T, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Fatalf("%q does not say %q", text, p)
		}
	}
}
