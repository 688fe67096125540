package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call waits as long as the call may take on its device: giving up sooner stops a task
// its device was still running within its deadline.
func TestCallWaitsForTheToolsOwnDeadline(t *testing.T) {
	for _, c := range []struct {
		tool  string
		args  map[string]any
		least time.Duration
	}{
		{"sleep", map[string]any{"seconds": 200.0}, 200 * time.Second},
		{"run_agent_task", map[string]any{"goal": "g"}, 20 * time.Minute},                                      // its default deadline
		{"run_agent_task", map[string]any{"goal": "g", "timeoutMs": 3_600_000.0}, time.Hour},                   // its own timeoutMs
		{"app_install", map[string]any{"timeout_ms": 1_800_000.0}, 30 * time.Minute},                           // timeout_ms within the cap
		{"tap_xy", map[string]any{"x": 0.5, "y": 0.5, "wait_seconds": 600.0}, 10*time.Minute + 10*time.Second}, // its wait, then its deadline
		{"acquire_device", map[string]any{"wait_seconds": 900.0}, 15 * time.Minute},
	} {
		got := callBudget(c.tool, c.args)
		assert.GreaterOrEqual(t, got, c.least+callMargin, "%s %v", c.tool, c.args)
	}
	// timeout_ms past the tool's cap is cut to the cap, as the node cuts it.
	assert.Equal(t, 2*time.Minute+callMargin, callBudget("tap_xy", map[string]any{"timeout_ms": 86_400_000.0}))
}

// When corral call's --timeout ends a call, it says so and what to do, rather than blame the
// node or the transport; the task is stopped.
func TestCallTimeoutNamesItself(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	args := `{"serial":"` + serial + `","seconds":30}`
	for name, via := range map[string][]string{
		"gateway": {"--gateway", f.Gateway().MCPURL},
		"nats":    {"--nats-url", f.URL},
	} {
		start := time.Now()
		err := runCall(t.Context(), append(via, "--timeout", "1s", "--log-level", "error", "sleep", args))
		require.Error(t, err, name)
		assert.True(t, strings.HasPrefix(err.Error(), "gave up after --timeout 1s: the task was stopped; raise --timeout"), "%s: %v", name, err)
		assert.NotContains(t, err.Error(), "task request to node", name)
		assert.NotContains(t, err.Error(), "transport error", name)
		assert.Less(t, time.Since(start), 20*time.Second, name)
	}
}

// corral call adds $CORRAL_LEASE to every call of a tool that takes a lease; when the gateway
// refuses it (a device the lease does not hold), the error says where the lease came from.
func TestCallNamesCORRALLEASEWhenItsLeaseIsRefused(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	devs := f.Devices()
	c := f.Client("holder")
	var got struct {
		Lease struct {
			Handle string `json:"handle"`
		} `json:"lease"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": devs[0].Serial}), &got)
	require.NotEmpty(t, got.Lease.Handle)
	t.Setenv("CORRAL_LEASE", got.Lease.Handle)

	err := runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error",
		"tap_xy", `{"serial":"` + devs[1].Serial + `","x":0.5,"y":0.5}`})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the lease sent was $CORRAL_LEASE's")
	assert.NotContains(t, err.Error(), got.Lease.Handle)

	// On the device it holds, the lease from the environment works.
	require.NoError(t, runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error",
		"tap_xy", `{"serial":"` + devs[0].Serial + `","x":0.5,"y":0.5}`}))
}
