package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A rig whose controller raises an alarm by itself, no task under way (a limit switch
// tripped: the twin's GRBL sends ALARM:1 and halts until a reset), is not available: the
// registry shows it unhealthy with GRBL's words for the alarm and what to do, free lists and
// acquire_device leave it out; it still takes a look and arm_recover, after which it is
// online and taps again.
func TestAlarmedRigIsNotAvailable(t *testing.T) {
	f, tw, serial := armFarm(t)
	op := f.Client("operator")
	gw := f.Gateway().Client

	tw.GRBL.InjectAlarm(1) // a hard limit tripped
	var dev broker.DeviceEntry
	farmtest.Eventually(t, 10*time.Second, func() bool {
		dev, _ = gw.Device(serial)
		return dev.State == broker.StateUnhealthy
	}, "the rig in alarm shown unhealthy")
	for _, want := range []string{"ALARM:1", "Hard limit", "arm_recover"} {
		assert.Contains(t, dev.Reason, want)
	}
	alarm := map[string]string{"serial": serial, "name": "alarm"}
	v, ok := farmGauge(t, f, "corral_device_reading", alarm)
	assert.True(t, ok && v == 1, "corral_device_reading{name=alarm} = %v before any task", v)

	var list struct{ Devices []struct{ Serial string } }
	farmtest.Structured(t, farmtest.MustCall(t, op, "list_available_devices", args("free_only", true)), &list)
	for _, d := range list.Devices {
		assert.NotEqual(t, serial, d.Serial, "a rig in alarm listed as free")
	}
	res := farmtest.Call(t, op, "acquire_device", args("platform", "arm"))
	require.True(t, res.IsError, "acquire_device leased a rig in alarm: %s", farmtest.Text(res))
	res = farmtest.Call(t, op, "tap", args("serial", serial, "bbox", []float64{0.4, 0.4, 0.5, 0.5}))
	require.True(t, res.IsError, "a tap in alarm: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "Hard limit", "the tap's refusal is the driver's, not the scheduler's")
	farmtest.MustCall(t, op, "screenshot", args("serial", serial)) // a person judges it by its screen

	farmtest.MustCall(t, op, "arm_recover", args("serial", serial))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		dev, _ = gw.Device(serial)
		return dev.State == broker.StateOnline
	}, "the rig online after arm_recover")
	n := len(tw.Phone.InputLog())
	farmtest.MustCall(t, op, "tap", args("serial", serial, "bbox", []float64{0.4, 0.4, 0.5, 0.5}))
	tappedAt(t, tw, n, []float64{0.4, 0.4, 0.5, 0.5}, "arm_recover")
}
