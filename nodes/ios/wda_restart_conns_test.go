package ios

import (
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/ios/wdasim"
)

// A simulated WebDriverAgent that answers every request with HTTP 500 is restarted by the sims'
// own launcher and the device is healthy again: the restart closes the connections open to the
// old WDA, as a real WDA's death does. Before, the driver's keep-alive connections went on
// reaching the old server, and the device stayed unhealthy through every relaunch.
func TestSimWDARestartDropsOldConnections(t *testing.T) {
	sims, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	dev := sims.Devices()[0]
	old := dev.WDA()
	restarts := d.Gauges()["wda_restarts"]
	old.SetFault(wdasim.FaultError500)
	eventually(t, 10*time.Second, func() bool { return dev.WDA() != old }, "WebDriverAgent relaunched")
	ready(t, reg, "ios-sim-01")
	if got := d.Gauges()["wda_restarts"] - restarts; got > 2 {
		t.Errorf("%v relaunches to get a WebDriverAgent that answers", got)
	}
}
