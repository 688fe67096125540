package main

import (
	"context"
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
// node or the transport; the task is stopped, and its record named by the task's id.
func TestCallTimeoutNamesItself(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	args := `{"serial":"` + serial + `","seconds":30}`
	for name, via := range map[string][]string{
		"gateway": {"--gateway", f.Gateway().MCPURL},
		"nats":    {"--nats-url", f.URL},
	} {
		// 5 s, not 1: on a loaded host, reaching the farm through NATS took all of 1 s, and the
		// call, never sent, rightly said so instead.
		start := time.Now()
		err := runCall(t.Context(), append(via, "--timeout", "5s", "--log-level", "error", "sleep", args))
		require.Error(t, err, name)
		assert.True(t, strings.HasPrefix(err.Error(), "gave up after --timeout 5s: the task was stopped; its record: corral call "+strings.Join(via, " ")+
			` get_task_result '{"taskId":"t_`), "%s: %v", name, err)
		assert.True(t, strings.HasSuffix(err.Error(), `"}'; raise --timeout to wait longer`), "%s: %v", name, err)
		assert.NotContains(t, err.Error(), "task request to node", name)
		assert.NotContains(t, err.Error(), "transport error", name)
		assert.Less(t, time.Since(start), 25*time.Second, name)
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

	// An error that is not the lease's (an unknown argument, which lists "lease" among those
	// tap_xy takes) gets no note about $CORRAL_LEASE.
	err = runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error",
		"tap_xy", `{"serial":"` + devs[0].Serial + `","x":0.5,"y":0.5,"bogus":1}`})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bogus")
	assert.NotContains(t, err.Error(), "CORRAL_LEASE")

	// On the device it holds, the lease from the environment works.
	require.NoError(t, runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error",
		"tap_xy", `{"serial":"` + devs[0].Serial + `","x":0.5,"y":0.5}`}))
}

// corral call interrupted (Ctrl-C) while its task waits in the device's queue says the call was
// interrupted, that the gateway withdrew the task, and the command that reads its record, instead
// of mcp-go's "transport error: failed to send request: failed to send request: … context
// canceled" through --gateway, and of what the in-process gateway tells an agent without.
func TestCallThroughAGatewayInterruptedSaysSo(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	farm := f.Gateway().Client
	serial := f.Devices()[0].Serial
	farmtest.MustCall(t, f.Client("holder"), "acquire_device", map[string]any{"serial": serial})
	queued := func(n int) func() bool {
		return func() bool {
			ls, err := farm.Leases(t.Context())
			return err == nil && len(ls) == 1 && ls[0].QueueLen == n
		}
	}

	// The task's id comes once the gateway has recorded it: on a loaded machine that may take
	// longer than the 3 s a person at the terminal is given, so the test gives it more.
	const idWait = 30 * time.Second
	interrupted := func(via ...string) error {
		ctx, interrupt := context.WithCancel(t.Context())
		defer interrupt()
		ended := make(chan error, 1)
		go func() {
			ended <- runCallWaiting(ctx, append(via, "--log-level", "error", "home", `{"serial":"`+serial+`","wait_seconds":30}`), idWait)
		}()
		farmtest.Eventually(t, 10*time.Second, queued(1), "the call waits in the queue of %s", serial)
		interrupt()
		select {
		case err := <-ended:
			farmtest.Eventually(t, 10*time.Second, queued(0), "the interrupted task left the queue")
			return err
		case <-time.After(idWait + 10*time.Second):
			t.Fatal("the interrupted call did not end")
			return nil
		}
	}

	// Both ways name a command that finds the task's record the way the call reached the farm,
	// and that command works (get_latest_task with a serial, or in a new corral call's session,
	// did not; without --gateway it was the in-process gateway's "get_task_result has its
	// record. [task …]", said to an agent).
	for _, via := range [][]string{{"--gateway", f.Gateway().MCPURL}, {"--nats-url", f.URL}} {
		err := interrupted(via...)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "home: the call was interrupted (context canceled): the gateway withdrew the task from the device's queue")
		assert.NotContains(t, err.Error(), "transport error")
		assert.NotContains(t, err.Error(), "failed to send request")
		_, hint, ok := strings.Cut(err.Error(), "its record: corral call ")
		require.True(t, ok, "no get_task_result hint: %v", err)
		flags, quoted, ok := strings.Cut(hint, " get_task_result '")
		require.True(t, ok, "no get_task_result hint: %v", err)
		require.Equal(t, strings.Join(via, " "), flags)
		taskArgs := strings.TrimSuffix(quoted, "'")
		var record string
		stderr := captureStderr(t, func() {
			record = captureStdout(t, func() {
				err = runCall(t.Context(), append(strings.Fields(flags), "--log-level", "error", "get_task_result", taskArgs))
			})
		})
		require.NoError(t, err, "corral call %s: %s", hint, stderr)
		assert.Contains(t, record, `"outcome":"aborted"`)
		assert.Contains(t, record, `"tool":"home"`)
	}

	// The first signal says a one-off command is interrupted, not that it shuts down.
	assert.Contains(t, interruptNotice("call"), "interrupted")
	assert.Contains(t, interruptNotice("up"), "shutting down")
}
