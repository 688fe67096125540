package mcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A call still running, or still waiting for its device, is the session's latest task: QA saw
// get_latest_task {"anyTool": true} answer the finished call before it (or "No task yet"), which
// is what a client that lost its connection checks before calling again.
func TestGetLatestTaskShowsTheCallInFlight(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	gw := f.Gateway().Client
	serial := gw.Devices()[0].Serial
	cl := f.ClientWithProtocol("qa", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION) // a revision with sessions
	farmtest.MustCall(t, cl, "sleep", map[string]any{"serial": serial, "seconds": 0.2})
	first := latestTask(t, cl)
	require.Equal(t, broker.OutcomeSucceeded, first.Outcome)

	// Running on its device.
	callInBackground(t, cl, "sleep", map[string]any{"serial": serial, "seconds": 30})
	var running string
	farmtest.Eventually(t, 20*time.Second, func() bool {
		if d, ok := gw.Device(serial); ok && d.Task != nil && d.Task.ID != first.TaskID {
			running = d.Task.ID
		}
		return running != ""
	}, "the second sleep runs")
	latest := latestTask(t, cl)
	assert.Equal(t, running, latest.TaskID, "the running sleep is the latest: %+v", latest)
	assert.Equal(t, "running", latest.Outcome)
	assert.Equal(t, "sleep", latest.Tool)
	assert.False(t, latest.Started.IsZero(), "it started: %+v", latest)

	// Waiting behind it for the device: running, not started yet.
	callInBackground(t, cl, "home", map[string]any{"serial": serial, "wait_seconds": 30})
	farmtest.Eventually(t, 20*time.Second, func() bool { return latestTask(t, cl).Tool == "home" }, "the queued home is the latest")
	for _, args := range []map[string]any{anyTool, {"anyTool": true, "serial": serial}} {
		var rec mcp.TaskRecordResult
		farmtest.Structured(t, farmtest.MustCall(t, cl, "get_latest_task", args), &rec)
		assert.Equal(t, "running", rec.Outcome, "%v: %+v", args, rec)
		assert.True(t, rec.Started.IsZero(), "%v: the queued home has not started: %+v", args, rec)
		assert.NotEqual(t, running, rec.TaskID)
	}

	// Another session's calls are not this one's.
	var other mcp.TaskRecordResult
	farmtest.Structured(t, farmtest.MustCall(t, f.ClientWithProtocol("qa", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION), "get_latest_task", anyTool), &other)
	assert.Equal(t, "none", other.Outcome, "another session: %+v", other)
	// The latest agent task (no anyTool) is not moved by a device call.
	var agent mcp.TaskRecordResult
	farmtest.Structured(t, farmtest.MustCall(t, cl, "get_latest_task", map[string]any{}), &agent)
	assert.Equal(t, "none", agent.Outcome, "no agent task: %+v", agent)
}

// callInBackground calls tool with args until the test ends, which cancels the call.
func callInBackground(t *testing.T, cl *client.Client, tool string, args map[string]any) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		_, _ = cl.CallTool(ctx, req)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-ended:
		case <-time.After(20 * time.Second):
			t.Errorf("%s: the cancelled call did not end", tool)
		}
	})
}
