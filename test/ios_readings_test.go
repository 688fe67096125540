package test

import (
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/ios"
)

// An iPhone's readings (wda_up, wda_restarts) follow its supervisor between tasks: the node
// exports them at each health report, not only when the device joins and after a task. A phone
// that ran no task read wda_up 0 (from before WebDriverAgent's first answer) for ever, and
// restarts by the supervisor alone showed only after the next task (QA N).
func TestIOSReadingsFollowTheSupervisorWithoutATask(t *testing.T) {
	f, sims := iosFarm(t, 1)
	serial := sims.Devices()[0].UDID()
	reading := func(name string) float64 {
		v, _ := farmGauge(t, f, "corral_device_reading", map[string]string{"serial": serial, "name": name})
		return v
	}
	farmtest.Eventually(t, 10*time.Second, func() bool { return reading("wda_up") == 1 }, "wda_up 1 once WebDriverAgent answers, no task run")
	restarts := reading("wda_restarts")

	sims.Devices()[0].Unhandle(ios.DefaultWDAPort)
	farmtest.Eventually(t, 20*time.Second, func() bool { return reading("wda_restarts") > restarts && reading("wda_up") == 1 },
		"the supervisor's restart of WebDriverAgent counted, no task run")
}
