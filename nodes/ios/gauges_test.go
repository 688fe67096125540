package ios

import (
	"strings"
	"testing"
	"time"
)

// The readings a driver gives for /metrics are its supervisor's at the moment they are read, no
// call needed: WDA killed, wda_up is 0 while the device is unhealthy; restarted by the
// supervisor alone, wda_up is 1 and wda_restarts counts the restart. (The node reads them when
// the device joins and after each task: docs/ios.md, Supervision.)
func TestReadingsFollowTheSupervisor(t *testing.T) {
	sims, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	if g := d.Gauges(); g["wda_up"] != 1 {
		t.Fatalf("a ready device reads %v", g)
	}
	restarts := d.Gauges()["wda_restarts"]
	dev := sims.Devices()[0]
	old := dev.WDA()
	dev.Unhandle(DefaultWDAPort)
	eventually(t, 10*time.Second, func() bool {
		err, _ := reg.healthOf("ios-sim-01")
		return err != nil && strings.Contains(err.Error(), "does not answer")
	}, "unhealthy with WebDriverAgent killed")
	if g := d.Gauges(); g["wda_up"] != 0 {
		t.Errorf("with WebDriverAgent not answering the device reads %v; want wda_up 0", g)
	}
	eventually(t, 10*time.Second, func() bool {
		err, _ := reg.healthOf("ios-sim-01")
		return err == nil && dev.WDA() != old
	}, "healthy again with a new WebDriverAgent")
	if g := d.Gauges(); g["wda_up"] != 1 || g["wda_restarts"] < restarts+1 {
		t.Errorf("after the supervisor restarted WebDriverAgent the device reads %v; want wda_up 1, wda_restarts ≥ %v", g, restarts+1)
	}
}
