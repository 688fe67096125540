package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call --gateway whose gateway goes away mid-call says once what failed, not mcp-go's
// "transport error: failed to send request: failed to send request: Post …: EOF", and that
// the call may have run, with how to find its task (as corral run's steps say it).
func TestCallLostGatewaySaysTheCallMayHaveRun(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	msg := callLostWithItsGateway(t, f, "sleep", `{"serial":"`+serial+`","seconds":30}`, func(d broker.DeviceEntry) bool {
		return d.Task != nil && d.Task.Tool == "sleep"
	})
	assert.NotContains(t, msg, "transport error")
	assert.Contains(t, msg, "the connection to the gateway failed after the call was sent, before its answer (")
	assert.Contains(t, msg, "sleep may have run")
	assert.Contains(t, msg, "`corral tasks --serial "+serial+" --tool sleep --limit 1` shows the newest sleep task")
}

// callLostWithItsGateway runs corral call --gateway TOOL ARGS on f's only device, stops the
// gateway once the device's registry entry shows the call (under), and returns the error the
// call ended with, which says once what failed.
func callLostWithItsGateway(t *testing.T, f *farmtest.Farm, tool, args string, under func(broker.DeviceEntry) bool) string {
	t.Helper()
	serial := f.Devices()[0].Serial
	done := make(chan error, 1)
	go func() {
		done <- runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error", tool, args})
	}()
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && under(d)
	}, "corral call's %s reaches %s", tool, serial)
	f.StopGateway()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("corral call did not end after its gateway went away")
	}
	require.Error(t, err)
	msg := err.Error()
	t.Log(msg)
	assert.Equal(t, 0, strings.Count(msg, "failed to send request"), "the error stutters: %s", msg)
	return msg
}
