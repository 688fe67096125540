package mcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// emergency_stop on a rig whose controller link is lost cannot stop it, but its node keeps the
// halt: the rig comes back halted (unhealthy, taking no gestures) until arm_recover. It
// answered "0 task(s) aborted", halted false, no error, and the rig came back online taking
// gestures with no person having looked at it.
func TestEmergencyStopOnAnOfflineRigKeepsItsHalt(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw, err := twin.Start(twin.Options{Seed: 5, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Close() })
	serial := tw.Phone.Info().Serial
	stop := f.ServeArmTwin("n1", tw)
	stop() // the rig leaves its node, as when its link is lost
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateOffline
	}, "the rig offline")

	operator := f.Client("operator")
	var out struct {
		Halted bool `json:"halted"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, operator, "emergency_stop", map[string]any{"serial": serial}), &out)
	if !out.Halted {
		t.Fatal("emergency_stop on an offline rig: not halted")
	}

	f.ServeArmTwinAs("n1", tw, broker.StateUnhealthy) // back, and halted (unhealthy "starting" a moment before)
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return strings.Contains(d.Reason, "halted by emergency_stop from ")
	}, "the rig back, halted by emergency_stop")
	res := farmtest.Call(t, operator, "tap_xy", map[string]any{"serial": serial, "x": 0.5, "y": 0.5})
	if !res.IsError || !strings.Contains(farmtest.Text(res), "halted") {
		t.Errorf("a gesture on the rig that came back halted: %s", farmtest.Text(res))
	}
	farmtest.MustCall(t, operator, "arm_recover", map[string]any{"serial": serial})
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateOnline
	}, "the rig online after arm_recover")
}
