package mcp_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
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
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// readCounter is a test farm's real client, counting the task-record reads of a gateway over
// it: TaskRecord's wait the grace for a record not yet written, PollTaskRecord's only after
// this client had the task's answer.
type readCounter struct {
	*broker.Client
	waiting, polls atomic.Int32
}

func (r *readCounter) TaskRecord(ctx context.Context, id string) (broker.TaskResult, error) {
	r.waiting.Add(1)
	return r.Client.TaskRecord(ctx, id)
}

func (r *readCounter) PollTaskRecord(ctx context.Context, id string) (broker.TaskResult, error) {
	r.polls.Add(1)
	return r.Client.PollTaskRecord(ctx, id)
}

// countingGateway is a second gateway on f's farm client whose record reads are counted, and a
// client of it with a session.
func countingGateway(t *testing.T, f *farmtest.Farm) (*readCounter, *client.Client) {
	t.Helper()
	rc := &readCounter{Client: f.Gateway().Client}
	g := mcp.New(rc, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()),
		mcp.Options{Platforms: []device.Platform{android.Platform()}})
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close(); g.Close() })
	c, err := client.NewStreamableHttpClient(hs.URL + "/mcp")
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(t.Context()))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "poller", Version: "test"}
	init.Params.ProtocolVersion = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)
	return rc, c
}

// QA: each get_task_result of a running agent task took a flat second, as did get_latest_task
// and an unknown id: the gateway read the record first, waiting a second for one "just
// written", though it knew it had sent the task and had no answer yet. It reads no record of
// a task it sent and still waits for, and an unknown id's only once (broker's
// TestPollTaskRecordWaitsOnlyAfterAnAnswer). Also QA: includeSteps: false still gave a running
// task's steps, and its durationMs stayed 0 while it ran.
func TestPollingARunningAgentTaskReadsNoRecord(t *testing.T) {
	f, serial := agentFarm(t, thinkingLong...)
	rc, c := countingGateway(t, f)
	id := startDetached(t, c, serial, "think long")

	var v taskView
	farmtest.Eventually(t, 20*time.Second, func() bool {
		v = viewOf(t, farmtest.MustCall(t, c, "get_task_result", map[string]any{"taskId": id}))
		return len(v.Steps) == 1 && v.DurationMS > 0
	}, "the running task's first step, and the time it ran so far")
	assert.Equal(t, "running", v.Outcome)
	v = viewOf(t, farmtest.MustCall(t, c, "get_latest_task", nil))
	assert.Equal(t, id, v.TaskID)
	assert.Equal(t, "running", v.Outcome)
	assert.Zero(t, rc.polls.Load()+rc.waiting.Load(), "a record read for a task this gateway sent and has no answer of")

	for tool, args := range map[string]map[string]any{"get_task_result": {"taskId": id, "includeSteps": false},
		"get_latest_task": {"includeSteps": false}} {
		v = viewOf(t, farmtest.MustCall(t, c, tool, args))
		assert.Equal(t, "running", v.Outcome, tool)
		assert.Empty(t, v.Steps, "%s: steps though includeSteps is false", tool)
	}

	res := farmtest.Call(t, c, "get_task_result", map[string]any{"taskId": "t_nosuchtask"})
	require.True(t, res.IsError)
	assert.Contains(t, farmtest.Text(res), "t_nosuchtask")
	assert.EqualValues(t, 1, rc.polls.Load(), "an unknown id's record read as a poll")
	assert.Zero(t, rc.waiting.Load(), "an unknown id's record waited for")
}
