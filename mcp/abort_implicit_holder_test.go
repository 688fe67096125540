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

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A device busy with another principal's task run without a lease is held by a one-task
// lease that list_leases does not list (QA Q12): abort_task's refusal says the task runs
// without a lease and ends with itself, not to look for its lease in list_leases. A device
// held by an explicit lease keeps list_leases's words.
func TestAbortRefusalOnATaskWithoutALeaseNamesNoLeaseList(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	free, leased := f.Devices()[0].Serial, f.Devices()[1].Serial
	pol, err := mcp.ParsePolicy([]byte(queuePolicy), t.TempDir())
	require.NoError(t, err)
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Policy: pol})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	alpha, beta := tokenClient(t, hs.URL, "alpha-agent", queueAlphaToken), tokenClient(t, hs.URL, "beta-agent", queueBetaToken)
	gamma := tokenClient(t, hs.URL, "gamma-agent", queueGammaToken)

	// beta's sleep, without a lease, blocks until aborted: the test ends it.
	slept := farmtest.Go(t, beta, "sleep", map[string]any{"serial": free, "seconds": 60})
	var id string
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(free)
		if d.Task != nil && d.Task.Tool == "sleep" && d.Holder != "" {
			id = d.Task.ID
		}
		return id != ""
	}, "beta's sleep running on %s", free)
	for _, args := range []map[string]any{{"serial": free}, {"task_id": id}} {
		text := wantRefused(t, farmtest.Call(t, gamma, "abort_task", args),
			fmt.Sprintf(`denied by policy: principal "gamma" may not abort the task of device %s, which principal "beta" holds`, free),
			"it runs without a lease (a one-task lease that ends with it; list_leases lists none)")
		assert.NotContains(t, text, "list_leases shows", "abort_task %v", args)
	}

	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, alpha, "acquire_device", map[string]any{"serial": leased}), &held)
	text := wantRefused(t, farmtest.Call(t, gamma, "abort_task", map[string]any{"serial": leased}),
		`which principal "alpha" holds`, "wait for the device (list_leases shows when its lease ends)")
	assert.NotContains(t, text, "without a lease")
	farmtest.MustCall(t, alpha, "release_device", map[string]any{"lease": held.Lease.Handle})

	farmtest.MustCall(t, beta, "abort_task", map[string]any{"task_id": id})
	assert.Contains(t, farmtest.Text((<-slept).Get(t)), "aborted")
}
