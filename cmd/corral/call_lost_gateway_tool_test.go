package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call acquire_device whose gateway goes away while it waits in the device's queue
// points at corral leases: acquire_device runs on the gateway and writes no task record, so
// the `corral tasks --serial … --tool acquire_device` it was told to run printed nothing.
func TestCallLostAcquireDevicePointsAtTheLeases(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	farmtest.MustCall(t, f.Client("holder"), "acquire_device", map[string]any{"serial": serial})
	done := make(chan error, 1)
	go func() {
		done <- runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error",
			"acquire_device", `{"serial":"` + serial + `","wait_seconds":60}`})
	}()
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Queued > 0
	}, "corral call's acquire_device waits in %s's queue", serial)
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
	assert.Contains(t, msg, "the connection to the gateway failed after the call was sent, before its answer (")
	assert.Contains(t, msg, "it runs on the gateway and leaves no task record: once the gateway is back, `corral leases` shows whether "+
		serial+" was leased to you")
	assert.NotContains(t, msg, "corral tasks")
	assert.Equal(t, 0, strings.Count(msg, "failed to send request"), "the error stutters: %s", msg)
}
