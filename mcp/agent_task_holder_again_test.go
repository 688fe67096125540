package mcp_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// heldAnswerFarm is the farm's client with the answer of its first agent task held back from
// the gateway until release, and the registry showing that task on its device until then, as
// the registry, written a moment later, does: the moment between the node's end of a task and
// the gateway's hearing of it, made to last.
type heldAnswerFarm struct {
	*broker.Client
	held     atomic.Pointer[broker.TaskRequest] // the first agent task, until its answer goes
	answered chan struct{}                      // its node answered
	release  chan struct{}                      // its answer goes to the gateway
	once     sync.Once
}

func (f *heldAnswerFarm) Run(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error) {
	holds := req.Tool == "run_agent_task" && f.held.CompareAndSwap(nil, &req)
	res, err := f.Client.Run(ctx, req, progress)
	if holds {
		close(f.answered)
		<-f.release
		f.held.Store(&broker.TaskRequest{}) // no other is held
	}
	return res, err
}

func (f *heldAnswerFarm) Device(serial string) (broker.DeviceEntry, bool) {
	d, ok := f.Client.Device(serial)
	if t := f.held.Load(); ok && t != nil && t.Serial == serial {
		d.Task = &broker.RunningTask{ID: t.ID, Tool: t.Tool}
	}
	return d, ok
}

func (f *heldAnswerFarm) releaseAnswer() { f.once.Do(func() { close(f.release) }) }

// The holder's second agent task, asked under its lease as its first one ends, runs under that
// lease: the gateway, still knowing the first running, sent it without the lease (so that
// the node would refuse it as already running), and the node, the first ended, refused it
// busy naming the caller itself as the device's holder.
func TestHoldersSecondAgentTaskAsTheFirstEndsRuns(t *testing.T) {
	f, serial := agentFarm(t, append([]modelsim.Turn{modelTurn("plan", `{"steps":[{"title":"Look"}]}`),
		modelTurn("finished", `{"content":"looked"}`)}, thinkingLong...)...)
	farm := &heldAnswerFarm{Client: f.Gateway().Client, answered: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(farm.releaseAnswer)
	g := mcp.New(farm, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{})
	t.Cleanup(g.Close)
	c, err := client.NewInProcessClient(g.MCPServer())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(t.Context()))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "holder", Version: "1"}
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)

	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": serial}), &held)
	lease := held.Lease.Handle
	var first, second struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "lease": lease,
		"goal": "look", "wait": false}), &first)
	select {
	case <-farm.answered: // the node ended it and freed the device; the gateway knows it running
	case <-time.After(20 * time.Second):
		t.Fatal("no answer from the node to the first task")
	}

	again := farmtest.Call(t, c, "run_agent_task", map[string]any{"serial": serial, "lease": lease, "goal": "again", "wait": false})
	require.False(t, again.IsError, "the holder's second agent task, its first ended: %s", farmtest.Text(again))
	farmtest.Structured(t, again, &second)
	require.Equal(t, "running", second.Status, farmtest.Text(again))
	require.NotEqual(t, first.TaskID, second.TaskID)
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task != nil && d.Task.ID == second.TaskID
	}, "the second task running on %s", serial)
	leases, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	require.Len(t, leases, 1, "the holder's lease")
	require.Equal(t, serial, leases[0].Serial)

	farm.releaseAnswer()
	_, err = f.Gateway().Client.Abort(t.Context(), broker.AbortRequest{V: broker.WireVersion, Serial: serial, TaskID: second.TaskID, Lease: lease})
	require.NoError(t, err)
}
