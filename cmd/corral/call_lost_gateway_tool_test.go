package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call acquire_device whose gateway goes away while it waits in the device's queue
// points at corral leases: acquire_device runs on the gateway and writes no task record, so
// the `corral tasks --serial … --tool acquire_device` it was told to run printed nothing.
func TestCallLostAcquireDevicePointsAtTheLeases(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	farmtest.MustCall(t, f.Client("holder"), "acquire_device", map[string]any{"serial": serial})
	msg := callLostWithItsGateway(t, f, "acquire_device", `{"serial":"`+serial+`","wait_seconds":60}`, func(d broker.DeviceEntry) bool {
		return d.Queued > 0
	})
	assert.Contains(t, msg, "the connection to the gateway failed after the call was sent, before its answer (")
	assert.Contains(t, msg, "it runs on the gateway and leaves no task record: once the gateway is back, `corral leases` shows whether "+
		serial+" was leased to you")
	assert.NotContains(t, msg, "corral tasks")
}
