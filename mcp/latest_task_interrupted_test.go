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

// A call its caller cancels reached its node, which records it as aborted: get_latest_task
// {"anyTool": true} then shows that call, as get_task_result does, whether it was running (aborted) or waiting
// in the device's queue (withdrawn), not the call before it.
func TestGetLatestTaskIsTheInterruptedCall(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	gw := f.Gateway().Client
	serial := gw.Devices()[0].Serial
	cl := f.ClientWithProtocol("qa", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION) // a revision with sessions
	farmtest.MustCall(t, cl, "sleep", map[string]any{"serial": serial, "seconds": 0.2})
	first := latestTask(t, cl)
	require.Equal(t, broker.OutcomeSucceeded, first.Outcome)

	// Running: the node aborts it.
	var running string
	cancelOnce(t, cl, "sleep", map[string]any{"serial": serial, "seconds": 30}, func() bool {
		d, ok := gw.Device(serial)
		if ok && d.Task != nil && d.Task.ID != first.TaskID {
			running = d.Task.ID
		}
		return running != ""
	})
	latest := eventuallyLatest(t, cl, func(r mcp.TaskRecordResult) bool { return r.TaskID != first.TaskID })
	assert.Equal(t, running, latest.TaskID, "the cancelled sleep is the latest")
	assert.Equal(t, broker.OutcomeAborted, latest.Outcome, "the cancelled sleep: %+v", latest)

	// Waiting behind another's lease: the node withdraws it from the queue.
	farmtest.MustCall(t, f.Client("holder"), "acquire_device", map[string]any{"serial": serial})
	cancelOnce(t, cl, "home", map[string]any{"serial": serial, "wait_seconds": 30}, func() bool {
		ls, err := gw.Leases(t.Context())
		return err == nil && len(ls) == 1 && ls[0].QueueLen == 1
	})
	latest = eventuallyLatest(t, cl, func(r mcp.TaskRecordResult) bool { return r.Tool == "home" })
	assert.Equal(t, broker.OutcomeAborted, latest.Outcome, "the withdrawn home: %+v", latest)
	var rec mcp.TaskRecordResult
	farmtest.Structured(t, farmtest.MustCall(t, cl, "get_task_result", map[string]any{"taskId": latest.TaskID}), &rec)
	assert.Equal(t, broker.OutcomeAborted, rec.Outcome, "get_task_result of the latest task")
}

// cancelOnce calls tool with args, cancels the call once started says it is on its way, and
// waits for the call to end.
func cancelOnce(t *testing.T, cl *client.Client, tool string, args map[string]any, started func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		_, _ = cl.CallTool(ctx, req)
	}()
	farmtest.Eventually(t, 20*time.Second, started, "%s %v is on its way", tool, args)
	cancel()
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: the cancelled call did not end", tool)
	}
}

// latestTask is get_latest_task {"anyTool": true}'s record: the latest task of any tool.
func latestTask(t *testing.T, cl *client.Client) mcp.TaskRecordResult {
	t.Helper()
	var rec mcp.TaskRecordResult
	farmtest.Structured(t, farmtest.MustCall(t, cl, "get_latest_task", anyTool), &rec)
	return rec
}

// anyTool are get_latest_task's arguments for the latest task of any tool, not only agent tasks.
var anyTool = map[string]any{"anyTool": true}

// eventuallyLatest waits for get_latest_task to answer a record that ok accepts (the cancelled
// call's record is written when its node has aborted it) and returns it.
func eventuallyLatest(t *testing.T, cl *client.Client, ok func(mcp.TaskRecordResult) bool) mcp.TaskRecordResult {
	t.Helper()
	var rec mcp.TaskRecordResult
	farmtest.Eventually(t, 20*time.Second, func() bool {
		res := farmtest.Call(t, cl, "get_latest_task", anyTool)
		rec = mcp.TaskRecordResult{}
		return !res.IsError && farmtest.Decode(res, &rec) == nil && rec.Outcome != "running" && rec.Outcome != "none" && ok(rec)
	}, "get_latest_task shows the cancelled call")
	return rec
}
