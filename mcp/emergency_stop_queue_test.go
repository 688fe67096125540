package mcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// An emergency_stop tells those waiting in the rig's queue: caller B's tap waiting for the
// holder's lease is refused at once (unhealthy, the halt's reason), as caller C's waiting
// acquire_device is. B waited its whole wait_seconds, told only who held the rig, and ended
// wait_expired without a word of the halt.
func TestEmergencyStopRefusesTheTasksWaitingForTheRig(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	serial := f.StartArmTwin("n1", 11, 4).Phone.Info().Serial
	holder, bob, carol := f.Client("holder"), f.Client("bob"), f.Client("carol")

	var got struct {
		Lease mcp.LeaseInfo `json:"lease"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, holder, "acquire_device", map[string]any{"serial": serial}), &got)
	long := farmtest.Go(t, holder, "sleep", map[string]any{"serial": serial, "lease": got.Lease.Handle, "seconds": 60})
	tap := farmtest.Go(t, bob, "tap_xy", map[string]any{"serial": serial, "x": 0.5, "y": 0.5, "wait_seconds": 60})
	acquire := farmtest.Go(t, carol, "acquire_device", map[string]any{"serial": serial, "wait_seconds": 60})
	farmtest.Eventually(t, 20*time.Second, func() bool {
		leases, _ := f.Gateway().Client.Leases(t.Context())
		for _, l := range leases {
			if l.Serial == serial && l.QueueLen >= 2 {
				return true
			}
		}
		return false
	}, "bob's tap and carol's acquire waiting in the rig's queue")

	stopped := time.Now()
	farmtest.MustCall(t, f.Client("operator"), "emergency_stop", map[string]any{"serial": serial})
	for what, a := range map[string]<-chan farmtest.Answer{"bob's waiting tap": tap, "carol's waiting acquire": acquire} {
		select {
		case ans := <-a:
			res := ans.Get(t)
			if text := farmtest.Text(res); !res.IsError || !strings.Contains(text, "unhealthy") || !strings.Contains(text, "halted by emergency_stop") {
				t.Errorf("%s after the emergency stop: %s", what, text)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s not answered within 30 s of the emergency stop", what)
		}
	}
	if waited := time.Since(stopped); waited > 30*time.Second {
		t.Errorf("the waiting callers were told %s after the emergency stop", waited)
	}
	if res := (<-long).Get(t); !res.IsError {
		t.Errorf("the holder's sleep went on through the emergency stop: %s", farmtest.Text(res))
	}
}
