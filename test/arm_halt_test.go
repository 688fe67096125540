package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A rig emergency_stop halted is not available: the registry shows it unhealthy with what to
// do, free lists and acquire_device leave it out, corral_devices counts it unhealthy; it still
// takes arm_recover, after which it is online again.
func TestHaltedRigIsNotAvailable(t *testing.T) {
	f, _, serial := armFarm(t)
	op := f.Client("operator")
	gw := f.Gateway().Client

	farmtest.MustCall(t, op, "emergency_stop", args("serial", serial))
	var dev broker.DeviceEntry
	farmtest.Eventually(t, 10*time.Second, func() bool {
		dev, _ = gw.Device(serial)
		return dev.State == broker.StateUnhealthy
	}, "the halted rig shown unhealthy")
	assert.Contains(t, dev.Reason, "arm_recover")

	var status struct{ State, Reason string }
	farmtest.Structured(t, farmtest.MustCall(t, op, "get_device_status", args("serial", serial)), &status)
	assert.Equal(t, broker.StateUnhealthy, status.State)
	var list struct{ Devices []struct{ Serial string } }
	farmtest.Structured(t, farmtest.MustCall(t, op, "list_available_devices", args("free_only", true)), &list)
	for _, d := range list.Devices {
		assert.NotEqual(t, serial, d.Serial, "a halted rig listed as free")
	}
	res := farmtest.Call(t, op, "acquire_device", args("platform", "arm"))
	require.True(t, res.IsError, "acquire_device leased a halted rig: %s", farmtest.Text(res))
	n, ok := farmGauge(t, f, "corral_devices", map[string]string{"platform": "arm", "state": broker.StateUnhealthy})
	assert.True(t, ok && n == 1, "corral_devices{platform=arm,state=unhealthy} = %v", n)

	farmtest.MustCall(t, op, "arm_recover", args("serial", serial))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		dev, _ = gw.Device(serial)
		return dev.State == broker.StateOnline
	}, "the rig online after arm_recover")
	farmtest.MustCall(t, op, "tap", args("serial", serial, "bbox", []float64{0.4, 0.4, 0.5, 0.5}))
}
