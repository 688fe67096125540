package mcp_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// QA: a second run_agent_task on a device whose agent task runs was refused ("Agent is already
// running. Please wait or call abort_task first.") by the gateway itself, and
// corral_tasks_total{outcome="refused"} did not count it, as it counts the node's refusals.
// Both seconds here ask to wait, one of them under the running task's lease: refused at once
// all the same, neither queued behind the running task.
func TestSecondAgentTaskIsCountedRefused(t *testing.T) {
	f, serial := agentFarm(t, thinkingLong...)
	refused := `corral_tasks_total{outcome="refused",tool="run_agent_task"}`
	require.Equal(t, 0.0, sample(t, f, refused), "before any task")

	c := sessionClient(f, "seed")
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": serial}), &held)
	lease := held.Lease.Handle
	var first struct {
		TaskID string `json:"taskId"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "lease": lease,
		"goal": "think long", "wait": false}), &first)
	id := first.TaskID
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task != nil && d.Task.ID == id
	}, "the first task running")

	for i, second := range []struct {
		who  *client.Client
		args map[string]any
	}{
		{sessionClient(f, "second"), map[string]any{"serial": serial, "goal": "another", "wait_seconds": 30}},
		{c, map[string]any{"serial": serial, "lease": lease, "goal": "another", "wait_seconds": 30}},
	} {
		again := farmtest.Call(t, second.who, "run_agent_task", second.args)
		require.True(t, again.IsError, farmtest.Text(again))
		contains(t, farmtest.Text(again), "Agent is already running. Please wait or call abort_task first.", "task "+id)
		want := float64(i + 1)
		farmtest.Eventually(t, 10*time.Second, func() bool { return sample(t, f, refused) == want },
			"%s counting refused second task %d (it shows %v)", refused, i+1, sample(t, f, refused))
	}
	var recorded broker.History
	farmtest.Eventually(t, 10*time.Second, func() bool {
		var err error
		recorded, err = f.Gateway().Client.TaskHistory(t.Context(), broker.HistoryQuery{Serial: serial, Tool: "run_agent_task", Outcome: broker.OutcomeRefused})
		return err == nil && len(recorded.Tasks) == 2
	}, "the node's records of both refusals (%d)", len(recorded.Tasks))
	for _, r := range recorded.Tasks {
		require.Equal(t, broker.CodeBusy, r.Code, "refused %s", r.ID)
	}
	contains(t, farmtest.Text(farmtest.MustCall(t, c, "abort_task", nil)), "Task aborted: "+id)
}

// sample reads one series' value from the farm gateway's /metrics (which has the node's).
func sample(t *testing.T, f *farmtest.Farm, series string) float64 {
	t.Helper()
	resp, err := http.Get(f.Gateway().HTTP.URL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			n, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err, line)
			return n
		}
	}
	t.Fatalf("no series %s in /metrics", series)
	return 0
}
