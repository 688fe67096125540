package rig_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl/grblsim"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// QA (`corral sim arm --freeze-after 80`, link_timeout 1m): a tap on a rig whose controller
// froze took 12 s and answered "the driver did not stop after cancellation; the device is
// marked unhealthy and its actor restarted", and the rig was online again 200 ms later for the
// next caller; that the controller stopped answering was in the log only. Now the tap's answer
// says so and what to do, the rig stays unhealthy with that reason until the controller
// answers, and then its next tap lifts the finger the frozen tap left down before it taps.
func TestFrozenControllerIsTheAnswerAndHoldsTheRig(t *testing.T) {
	f, tw := startOnlineFrozenableRig(t)
	const serial = "bench-arm-1"
	// The controller freezes as the finger touches, as kill -STOP leaves it mid-tap.
	var freeze sync.Once
	remove := tw.GRBL.OnFinger(func(e grblsim.FingerEvent) {
		if e.Kind == grblsim.FingerDown {
			freeze.Do(func() { tw.GRBL.Stall(time.Hour) })
		}
	})
	defer remove()
	c := f.Client("agent")
	tap := map[string]any{"serial": serial, "bbox": []float64{0.4, 0.4, 0.6, 0.6}}
	res, err := farmtest.TryCall(t, c, "tap", tap)
	if err != nil {
		t.Fatal(err)
	}
	text := farmtest.Text(res)
	t.Logf("the tap on the frozen controller answered: %s", text)
	for _, want := range []string{"timed out", "the controller stopped answering: no status report for", "check the controller"} {
		if !res.IsError || !strings.Contains(text, want) || strings.Contains(text, "did not stop after cancellation") {
			t.Fatalf("a tap on the frozen controller answered %q; want it to say %q, and not that the driver did not stop", text, want)
		}
	}
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateUnhealthy && strings.Contains(d.Reason, "the controller stopped answering")
	}, "the rig unhealthy, its controller not answering")
	res, err = farmtest.TryCall(t, c, "tap", tap)
	if err != nil {
		t.Fatal(err)
	}
	if text := farmtest.Text(res); !res.IsError || !strings.Contains(text, "unhealthy") || !strings.Contains(text, "the controller stopped answering") {
		t.Fatalf("the next tap while the controller is frozen answered %q; want it refused, unhealthy, the controller not answering", text)
	}

	tw.GRBL.StallUntil(time.Time{})
	farmtest.Eventually(t, time.Minute, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateOnline
	}, "the rig online once its controller answers")
	if !tw.GRBL.Snapshot().FingerDown {
		t.Fatal("the frozen tap's finger is up before the rig was brought to rest: the test froze nothing")
	}
	farmtest.MustCall(t, c, "tap", tap)
	if tw.GRBL.Snapshot().FingerDown {
		t.Fatal("the finger is down after a tap on the rig whose controller answered again")
	}
}

// startOnlineFrozenableRig starts a farm with the twin's rig (bench-arm-1) on a controller
// link that waits a minute (link_timeout 1m), so that the tests, not the link, see a frozen
// controller, and waits until the rig is calibrated and online.
func startOnlineFrozenableRig(t *testing.T) (*farmtest.Farm, *twin.Twin) {
	t.Helper()
	f, tw := startTwinRigLinked(t, "1m", func(_ *twin.Twin, h http.Handler) http.Handler { return h })
	farmtest.Eventually(t, 2*time.Minute, func() bool {
		d, _ := f.Gateway().Client.Device("bench-arm-1")
		return d.State == broker.StateOnline
	}, "the rig calibrated and online")
	return f, tw
}
