package test

import (
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/web"
	"github.com/stretchr/testify/require"
)

// A browser that stopped for idleness kept its last memory gauge for ever: the node exported
// gauges only after tasks, and docs/web.md says the gauge drops to 0. The device now reports
// as its browser stops, and the node exports the gauges with the report.
func TestWebMemoryGaugeDropsWhenTheBrowserStops(t *testing.T) {
	needChromium(t)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), web.Platform()}})
	phone, _ := web.ProfileNamed("phone")
	d, err := web.Start(t.Context(), web.Options{Serial: "web-idle", Profile: phone, Lazy: true, Idle: time.Second})
	require.NoError(t, err)
	f.AddDriver("n1", d)
	waitOnline(t, f, "web-idle")
	c := f.Client("agent")
	farmtest.MustCall(t, c, "press_button", args("serial", "web-idle", "button", "HOME")) // starts the browser
	if mib := deviceGauge(t, f, "web-idle", "memory_mib"); mib <= 0 {
		t.Fatalf("memory_mib of a running browser after a task: %g", mib)
	}
	farmtest.Eventually(t, time.Minute, func() bool { return !d.Running() }, "the browser to stop for idleness")
	farmtest.Eventually(t, 20*time.Second, func() bool { return deviceGauge(t, f, "web-idle", "memory_mib") == 0 },
		"memory_mib to drop to 0 once the browser stopped")
}
