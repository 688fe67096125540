package rig_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// idleSilenceBound is how soon a rig whose controller froze while idle must show unhealthy:
// the watch's patience is about 4 s on a host that keeps up; a loaded one asks late and
// waits longer, still well short of the link_timeout (1m) that took it offline before.
const idleSilenceBound = 30 * time.Second

// A controller that froze while its rig sat idle (link_timeout 1m) left the rig online, and
// free, until a task found it silent or the link timed out a minute later: the node checks a
// healthy device only after a task. Now the rig watches the status reports and shows
// unhealthy with why, and online again once the controller answers, with no task at all.
func TestControllerFrozenIdleShowsUnhealthyAndBack(t *testing.T) {
	f, tw := startOnlineFrozenableRig(t)
	const serial = "bench-arm-1"
	c := f.Client("agent")

	frozen := time.Now()
	tw.GRBL.Stall(time.Hour)
	farmtest.Eventually(t, idleSilenceBound, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateUnhealthy && strings.Contains(d.Reason, "the controller stopped answering")
	}, "the idle rig unhealthy, its controller not answering")
	t.Logf("the idle rig showed unhealthy %s after its controller froze", time.Since(frozen).Round(100*time.Millisecond))
	status := farmtest.Text(farmtest.MustCall(t, c, "get_device_status", map[string]any{"serial": serial}))
	for _, want := range []string{"unhealthy", "the controller stopped answering: no status report since", "check the controller"} {
		if !strings.Contains(status, want) {
			t.Fatalf("get_device_status of the rig whose controller froze while idle: %s; want it to say %q", status, want)
		}
	}

	tw.GRBL.StallUntil(time.Time{})
	farmtest.Eventually(t, idleSilenceBound, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateOnline
	}, "the rig online once its controller answers, with no task")
	farmtest.MustCall(t, c, "tap", map[string]any{"serial": serial, "bbox": []float64{0.4, 0.4, 0.6, 0.6}})
	if tw.GRBL.Snapshot().FingerDown {
		t.Fatal("the finger is down after a tap on the rig whose controller answered again")
	}
}
