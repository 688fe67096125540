package mcp_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// laggingRegistry is a test farm's real client whose registry shows no running task and no
// holder: the registry as a gateway reads it in the quarter second before a node shows a task
// that has just started (the node's mirror lags it), held there for as long as the test needs.
type laggingRegistry struct{ *broker.Client }

func (r laggingRegistry) Devices() []broker.DeviceEntry {
	out := r.Client.Devices()
	for i := range out {
		out[i] = beforeTheTask(out[i])
	}
	return out
}

func (r laggingRegistry) Device(serial string) (broker.DeviceEntry, bool) {
	d, ok := r.Client.Device(serial)
	return beforeTheTask(d), ok
}

// beforeTheTask is d as its registry entry read before its running task showed.
func beforeTheTask(d broker.DeviceEntry) broker.DeviceEntry {
	d.Task, d.Holder = nil, ""
	if d.State == broker.StateBusy {
		d.State = broker.StateOnline
	}
	return d
}

// Under a policy only a running task's sender, its device's lease holder or an operator
// aborts it. The gateway checks the holder in the registry, which shows a task only a moment
// after it starts: in that moment gamma, knowing beta's task id, aborted it. The node checks
// the sender itself: gamma's abort_task by task_id or serial through a gateway whose registry
// does not show the task yet is refused, naming beta and the rule, and counted as a policy
// denial; the task runs on until beta aborts it.
func TestAbortOfAJustStartedTaskOfAnotherPrincipalIsDenied(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	pol, err := mcp.ParsePolicy([]byte(queuePolicy), t.TempDir())
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	g := mcp.New(laggingRegistry{f.Gateway().Client}, slog.New(slog.DiscardHandler), mcp.NewMetrics(reg), mcp.Options{Policy: pol})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	beta, gamma := tokenClient(t, hs.URL, "beta-agent", queueBetaToken), tokenClient(t, hs.URL, "gamma-agent", queueGammaToken)

	// sleep blocks until aborted: the test ends it.
	slept := farmtest.Go(t, beta, "sleep", map[string]any{"serial": serial, "seconds": 60})
	var id string
	farmtest.Eventually(t, 20*time.Second, func() bool { // the test reads the real registry
		d, _ := f.Gateway().Client.Device(serial)
		if d.Task != nil && d.Task.Tool == "sleep" {
			id = d.Task.ID
		}
		return id != ""
	}, "beta's sleep running on %s", serial)

	denied := deniedCount(t, reg, "holder")
	for _, args := range []map[string]any{{"task_id": id}, {"serial": serial}, {"task_id": id, "serial": serial, "all": true}} {
		res := farmtest.Call(t, gamma, "abort_task", args)
		require.True(t, res.IsError, "gamma aborted beta's running task with %v: %s", args, farmtest.Text(res))
		wantRefused(t, res, fmt.Sprintf(`denied by policy: principal "gamma" may not abort task %s, which principal "beta" runs on device %s `+
			`(rule: only a running task's sender, the device's lease holder or an operator aborts it); ask beta or an operator to abort it`, id, serial))
	}
	assert.Equal(t, denied+3, deniedCount(t, reg, "holder"), "the node's refusals are not counted as policy denials")
	select {
	case a := <-slept:
		t.Fatalf("beta's task ended after gamma's refused aborts: %s", farmtest.Text(a.Get(t)))
	default:
	}

	var out mcp.AbortResult
	farmtest.Structured(t, farmtest.MustCall(t, beta, "abort_task", map[string]any{"task_id": id}), &out)
	assert.Equal(t, []string{id}, out.Aborted, "beta aborting its own running task")
	assert.Contains(t, farmtest.Text((<-slept).Get(t)), "aborted")
}
