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

// emergency_stop on a rig whose controller link is lost cannot halt it (its node has no
// driver for it, nor a halt to keep): it says so, as an error, with what to do. It answered
// "0 task(s) aborted", halted false, no error, and the rig came back online taking gestures.
func TestEmergencyStopOnAnOfflineRigSaysItIsNotHalted(t *testing.T) {
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

	res := farmtest.Call(t, f.Client("operator"), "emergency_stop", map[string]any{"serial": serial})
	text := farmtest.Text(res)
	if !res.IsError {
		t.Fatalf("emergency_stop on an offline rig answered as done: %s", text)
	}
	for _, want := range []string{"NOT halted", "offline", "cut its power", "emergency_stop again"} {
		if !strings.Contains(text, want) {
			t.Errorf("emergency_stop on an offline rig: %q says no %q", text, want)
		}
	}
}
