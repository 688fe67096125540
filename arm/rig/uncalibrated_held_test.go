package rig_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A rig recovered from a halt that kept it from calibrating is not offered free: it shows
// unhealthy "not calibrated", saying to run arm_calibrate, and out of free_only lists, while
// it takes arm_calibrate, after which it is online. It was online and handed out, then
// refused every gesture as "screen size: the rig is not calibrated".
func TestRecoveredUncalibratedRigIsHeldUntilCalibrated(t *testing.T) {
	rb := &gatedReadback{gate: make(chan struct{})}
	f, _ := startTwinRig(t, func(_ *twin.Twin, h http.Handler) http.Handler { rb.next = h; return rb })
	farmtest.Eventually(t, time.Minute, func() bool {
		d, ok := f.Gateway().Client.Device("bench-arm-1")
		return ok && strings.Contains(d.Reason, "calibrating")
	}, "the rig calibrating at start")
	stopAndWaitHalted(t, f) // halted before it had a calibration
	close(rb.gate)

	op := f.Client("operator")
	farmtest.MustCall(t, op, "arm_recover", map[string]any{"serial": "bench-arm-1"})
	var d broker.DeviceEntry
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, _ = f.Gateway().Client.Device("bench-arm-1")
		return d.State != broker.StateUnhealthy || strings.Contains(d.Reason, "not calibrated")
	}, "the recovered rig's state")
	if d.State != broker.StateUnhealthy || !strings.Contains(d.Reason, "arm_calibrate") {
		t.Fatalf("the recovered rig without a calibration shows %s (%s), want unhealthy, not calibrated, saying arm_calibrate", d.State, d.Reason)
	}
	var list struct{ Devices []struct{ Serial string } }
	farmtest.Structured(t, farmtest.MustCall(t, op, "list_available_devices", map[string]any{"free_only": true}), &list)
	for _, l := range list.Devices {
		if l.Serial == "bench-arm-1" {
			t.Error("the rig without a calibration is listed free")
		}
	}

	farmtest.MustCall(t, op, "arm_calibrate", map[string]any{"serial": "bench-arm-1"})
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, _ = f.Gateway().Client.Device("bench-arm-1")
		return d.State == broker.StateOnline
	}, "the rig online once calibrated")
}
