package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// QA: a tap_xy queued behind another caller's sleep, whose gateway went away, was told
// "`corral tasks --serial S --limit 1` shows its task and how it ended", which showed the
// other caller's interrupted sleep: the queued tap never ran and has no record. The hint now
// filters by the call's tool and says a call still queued leaves no record; run as it says,
// it does not show the other caller's task.
func TestCallLostWhileQueuedHintDoesNotShowAnotherCallersTask(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	call := func(tool, args string) <-chan error {
		done := make(chan error, 1)
		go func() {
			done <- runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error", tool, args})
		}()
		return done
	}
	sleeping := call("sleep", `{"serial":"`+serial+`","seconds":30}`)
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task != nil && d.Task.Tool == "sleep"
	}, "the sleep runs on %s", serial)
	tapping := call("tap_xy", `{"serial":"`+serial+`","x":0.5,"y":0.5,"wait_seconds":60}`)
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Queued > 0
	}, "the tap waits in %s's queue", serial)
	f.StopGateway()
	ended := func(done <-chan error, what string) error {
		select {
		case err := <-done:
			require.Error(t, err, what)
			return err
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not end after its gateway went away", what)
			return nil
		}
	}
	ended(sleeping, "the sleep")
	msg := ended(tapping, "the queued tap").Error()
	t.Log(msg)
	assert.Contains(t, msg, "tap_xy may have run")
	assert.Contains(t, msg, "a call still waiting in the device's queue never ran and leaves no record")

	// Once the sleep's record is written, the hint's command shows no sleep.
	f.StartGateway()
	nats := []string{"--nats-url", f.URL, "--log-level", "error"}
	farmtest.Eventually(t, 20*time.Second, func() bool {
		out := captureStdout(t, func() {
			_ = runTasks(t.Context(), append(nats, "--serial", serial, "--tool", "sleep", "--json"))
		})
		return strings.Contains(out, `"tool":"sleep"`)
	}, "the sleep's record")
	_, cmd, ok := strings.Cut(msg, "`")
	require.True(t, ok, "no command in %q", msg)
	cmd, _, _ = strings.Cut(cmd, "`")
	args, ok := strings.CutPrefix(cmd, "corral tasks ")
	require.True(t, ok, "the hint's command is not corral tasks: %q", cmd)
	assert.Contains(t, args, "--serial "+serial)
	var out string
	out = captureStdout(t, func() {
		require.NoError(t, runTasks(t.Context(), append(nats, append(strings.Fields(args), "--json")...)))
	})
	t.Logf("corral tasks %s:\n%s", args, out)
	assert.NotContains(t, out, `"tool":"sleep"`, "the hint shows another caller's task")
}
