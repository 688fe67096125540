package mcp_test

import (
	"context"
	"log/slog"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A call whose caller stops waiting (corral call's Ctrl-C: its in-process gateway's context
// ends) while its task waits in a device's queue says the caller interrupted it and the task was
// withdrawn, not that its node may have been lost; the task leaves the queue and its record
// says it was aborted.
func TestCallerInterruptedWhileQueuedIsNotCalledLost(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	gw := f.Gateway().Client
	serial := gw.Devices()[0].Serial
	holder := f.Client("holder")
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, holder, "acquire_device", map[string]any{"serial": serial}), &held)
	queued := func(n int) func() bool {
		return func() bool {
			ls, err := gw.Leases(t.Context())
			return err == nil && len(ls) == 1 && ls[0].QueueLen == n
		}
	}

	cli, reg := inProcessCLI(t, gw)
	ctx, interrupt := context.WithCancel(t.Context())
	defer interrupt()
	answer := make(chan *mcpgo.CallToolResult, 1)
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "home", map[string]any{"serial": serial, "wait_seconds": 30}
		res, _ := cli.CallTool(ctx, req)
		answer <- res
	}()
	farmtest.Eventually(t, 10*time.Second, queued(1), "the call waits in the queue of %s", serial)
	interrupt()
	var res *mcpgo.CallToolResult
	select {
	case res = <-answer:
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to the interrupted call")
	}
	require.NotNil(t, res, "the in-process call ended without a result")
	text := farmtest.Text(res)
	assert.True(t, res.IsError, text)
	assert.Contains(t, text, "home on "+serial+": the call was interrupted by its caller (context canceled)")
	assert.Contains(t, text, "withdrawn from the device's queue")
	assert.NotContains(t, text, "when it is back", "a caller's own interruption is not a lost node")
	farmtest.Eventually(t, 10*time.Second, queued(0), "the interrupted task left the queue")
	// Counted as aborted, not lost: a caller's Ctrl-C is no error for the farm's alerts.
	assert.Equal(t, 1.0, callCount(t, reg, "home", broker.OutcomeAborted), "home calls counted aborted")
	assert.Zero(t, callCount(t, reg, "home", broker.OutcomeLost), "home calls counted lost")

	id := regexp.MustCompile(`\[task (\S+)\]`).FindStringSubmatch(text)
	require.Len(t, id, 2, "no task id in %q", text)
	var rec mcp.TaskRecordResult
	farmtest.Eventually(t, 10*time.Second, func() bool {
		r := farmtest.Call(t, cli, "get_task_result", map[string]any{"taskId": id[1]})
		return !r.IsError && farmtest.Decode(r, &rec) == nil && rec.Outcome != ""
	}, "a record of task %s", id[1])
	assert.Equal(t, broker.OutcomeAborted, rec.Outcome)
}

// inProcessCLI is a gateway in process over the farm's client, as corral call makes one, and
// the registry of its metrics.
func inProcessCLI(t *testing.T, farm *broker.Client) (*client.Client, *prometheus.Registry) {
	reg := prometheus.NewRegistry()
	g := mcp.New(farm, slog.New(slog.DiscardHandler), mcp.NewMetrics(reg), mcp.Options{})
	c, err := client.NewInProcessClient(g.MCPServer())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(t.Context()))
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "corral-cli", Version: "1"}
	_, err = c.Initialize(t.Context(), req)
	require.NoError(t, err)
	return c, reg
}

// callCount is corral_mcp_tool_calls_total{tool, outcome} in reg.
func callCount(t *testing.T, reg prometheus.Gatherer, tool, outcome string) float64 {
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "corral_mcp_tool_calls_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["tool"] == tool && labels["outcome"] == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// The caller of a run_agent_task that leaves (Ctrl-C) leaves the task running on to its end: the
// call is counted aborted, as any call whose caller stopped waiting, not lost (which feeds the
// error alerts), and its answer says the task runs on rather than that its node may be lost.
func TestAgentTaskCallerLeavingIsNotCalledLost(t *testing.T) {
	f, serial := agentFarm(t, thinkingLong...)
	gw := f.Gateway().Client
	cli, reg := inProcessCLI(t, gw)
	ctx, leave := context.WithCancel(t.Context())
	defer leave()
	answer := make(chan *mcpgo.CallToolResult, 1)
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "run_agent_task", map[string]any{"serial": serial, "goal": "think long"}
		res, _ := cli.CallTool(ctx, req)
		answer <- res
	}()
	var id string
	farmtest.Eventually(t, 10*time.Second, func() bool {
		if d, ok := gw.Device(serial); ok && d.Task != nil && d.Task.Tool == "run_agent_task" {
			id = d.Task.ID
		}
		return id != ""
	}, "the agent task running")
	leave()
	var res *mcpgo.CallToolResult
	select {
	case res = <-answer:
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to the call its caller left")
	}
	require.NotNil(t, res, "the in-process call ended without a result")
	text := farmtest.Text(res)
	assert.Contains(t, text, "the agent task runs on to its end")
	assert.NotContains(t, text, "when it is back", "a caller leaving is not a lost node")
	assert.Equal(t, 1.0, callCount(t, reg, "run_agent_task", broker.OutcomeAborted), "run_agent_task calls counted aborted")
	assert.Zero(t, callCount(t, reg, "run_agent_task", broker.OutcomeLost), "run_agent_task calls counted lost")

	d, ok := gw.Device(serial)
	require.True(t, ok)
	require.NotNil(t, d.Task, "the task runs on after its caller left")
	assert.Equal(t, id, d.Task.ID)
}

// An acquire_device whose caller stops waiting in a device's queue (Ctrl-C, a closed stream) is
// counted aborted, as a device tool's call is: it was counted lost (one device) or refused (a
// group), and lost feeds the error alerts. The wait is withdrawn: the device's queue empties.
func TestAcquireWaitInterruptedIsCountedAborted(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	gw := f.Gateway().Client
	holder := f.Client("holder")
	for _, d := range gw.Devices() {
		farmtest.MustCall(t, holder, "acquire_device", map[string]any{"serial": d.Serial})
	}
	cli, reg := inProcessCLI(t, gw)
	for i, args := range []map[string]any{
		{"serial": gw.Devices()[0].Serial, "wait_seconds": 30},
		{"count": 2, "wait_seconds": 30},
	} {
		ctx, interrupt := context.WithCancel(t.Context())
		answered := make(chan struct{})
		go func() {
			defer close(answered)
			req := mcpgo.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = "acquire_device", args
			_, _ = cli.CallTool(ctx, req)
		}()
		farmtest.Eventually(t, 10*time.Second, func() bool { return anyQueued(t, gw) }, "acquire_device %v waits in a queue", args)
		interrupt()
		select {
		case <-answered:
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to the interrupted acquire_device %v", args)
		}
		farmtest.Eventually(t, 10*time.Second, func() bool {
			return callCount(t, reg, "acquire_device", broker.OutcomeAborted) == float64(i+1)
		}, "acquire_device %v counted aborted", args)
		assert.Zero(t, callCount(t, reg, "acquire_device", broker.OutcomeLost), "acquire_device calls counted lost")
		assert.Zero(t, callCount(t, reg, "acquire_device", broker.OutcomeRefused), "acquire_device calls counted refused")
		farmtest.Eventually(t, 10*time.Second, func() bool { return !anyQueued(t, gw) }, "the interrupted wait left the queue")
	}
}

// anyQueued says whether a call waits in any device's queue.
func anyQueued(t *testing.T, gw *broker.Client) bool {
	ls, err := gw.Leases(t.Context())
	require.NoError(t, err)
	return slices.ContainsFunc(ls, func(l broker.Lease) bool { return l.QueueLen > 0 })
}
