package actors_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android/adbsim"
)

// A simulated Android phone behind a real adb server that stops answering (as when its
// process is SIGSTOPped: every shell command waits, cancellation still closes the stream):
// the tap times out at its deadline, the phone then shows unhealthy with the health check's
// reason, the screenshot queued behind the tap waits instead of running its own deadline on
// the hung phone, and runs once the phone answers again.
func TestHungAndroidPhoneGoesUnhealthyAndItsQueuedCallWaits(t *testing.T) {
	if _, err := exec.LookPath("adb"); err != nil {
		t.Skip("needs adb (make test installs it)")
	}
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	_, devs := f.StartAndroid("n1", 1, adbsim.WithInputDevicesDenied()) // taps are `input` commands, which SetDelay holds
	d := devs[0]
	entry := func() broker.DeviceEntry { e, _ := f.Gateway().Client.Device(d.Serial()); return e }
	farmtest.Eventually(t, 10*time.Second, func() bool { return entry().State == broker.StateOnline }, "%s online", d.Serial())
	c := f.Client("agent")

	d.SetDelay(time.Hour) // hung
	tap := farmtest.Go(t, c, "tap_xy", map[string]any{"serial": d.Serial(), "x": 0.5, "y": 0.5, "timeout_ms": 3000})
	farmtest.Eventually(t, 5*time.Second, func() bool { return entry().State == broker.StateBusy }, "the tap runs")
	shot := farmtest.Go(t, c, "screenshot", map[string]any{"serial": d.Serial(), "wait_seconds": 120})
	select {
	case a := <-tap:
		if text := farmtest.Text(a.Get(t)); !strings.Contains(text, "timed_out") && !strings.Contains(text, "deadline") {
			t.Fatalf("the tap on a hung phone: %s, want it timed out", text)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the tap on a hung phone never ended")
	}
	farmtest.Eventually(t, 15*time.Second, func() bool { return entry().State == broker.StateUnhealthy }, "the hung phone shown unhealthy")
	if e := entry(); !strings.Contains(e.Reason, "deadline") && !strings.Contains(e.Reason, "did not answer") {
		t.Errorf("unhealthy without the health check's reason: %q", e.Reason)
	}
	select {
	case a := <-shot:
		t.Fatalf("the screenshot queued behind the tap ran on the hung phone: %s", farmtest.Text(a.Get(t)))
	default:
	}

	d.SetDelay(0) // answers again
	select {
	case a := <-shot:
		if res := a.Get(t); res.IsError {
			t.Fatalf("the queued screenshot once the phone answered: %s", farmtest.Text(res))
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the queued screenshot never ran once the phone answered again")
	}
	farmtest.Eventually(t, 10*time.Second, func() bool { return entry().State == broker.StateOnline }, "the phone online again")
}
