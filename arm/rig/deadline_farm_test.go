package rig_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// QA: `screenshot {"timeout_ms":5}` on an arm twin, a few times, answered "the driver did not
// stop after cancellation; the device is marked unhealthy" a second later, and the rig
// refused everyone until a health check passed; or it succeeded a second after its deadline.
// The camera's render, the rectification and the JPEG took no ctx. Each such screenshot now
// answers timed_out, the rig stays healthy, and a screenshot in time still works.
func TestArmScreenshotsPastTheirDeadlineLeaveTheRigHealthy(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw := f.StartArmTwin("n1", 5, 4)
	serial := tw.Phone.Info().Serial
	c := f.Client("agent")
	for i := range 4 {
		res, err := farmtest.TryCall(t, c, "screenshot", map[string]any{"serial": serial, "timeout_ms": 5})
		if err != nil {
			t.Fatal(err)
		}
		text := farmtest.Text(res)
		if !res.IsError || !strings.Contains(text, "timed out: deadline of 5ms passed") || strings.Contains(text, "did not stop") {
			t.Fatalf("screenshot %d with a 5 ms deadline: %s; want timed_out", i, text)
		}
		farmtest.Eventually(t, 30*time.Second, func() bool {
			e, _ := f.Gateway().Client.Device(serial)
			return e.State == broker.StateOnline
		}, "the rig online again after screenshot %d timed out", i)
		if e, _ := f.Gateway().Client.Device(serial); e.State == broker.StateUnhealthy {
			t.Fatalf("the rig is unhealthy after screenshot %d: %s", i, e.Reason)
		}
	}
	res := farmtest.MustCall(t, c, "screenshot", map[string]any{"serial": serial})
	if data, mime := farmtest.Image(res); len(data) == 0 || mime != "image/jpeg" {
		t.Fatalf("a screenshot in time after those: %s", farmtest.Text(res))
	}
}
