package web

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// browserFarm puts d on a farm's node (grace: the farm's grace period, 0 for the default) and
// waits for it online.
func browserFarm(t *testing.T, d *Driver, grace time.Duration) *farmtest.Farm {
	t.Helper()
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Grace: grace, Platforms: []device.Platform{android.Platform(), Platform()}})
	f.AddDriver("n1", d)
	waitState(t, f, d.Info().Serial, broker.StateOnline)
	return f
}

// waitState waits for the gateway to show serial in state.
func waitState(t *testing.T, f *farmtest.Farm, serial, state string) {
	t.Helper()
	farmtest.Eventually(t, 30*time.Second, func() bool {
		e, ok := f.Gateway().Client.Device(serial)
		return ok && e.State == state
	}, "%s %s", serial, state)
}

// The wipe after a lease is the ended lease's, not the next caller's: a call with a short
// timeout_ms right after a release times out saying the device was being wiped, and neither
// fails the wipe nor marks the device unhealthy (as it did when the wipe ran within the
// caller's deadline: "wiping what its last holder left failed … context deadline exceeded").
// The device then serves the next call, wiped: the holder's page is gone.
func TestShortCallRightAfterAReleaseLeavesTheDeviceWell(t *testing.T) {
	r := newRecorder(t)
	d := startBrowserWith(t, Options{Serial: "web-wiped"})
	f := browserFarm(t, d, 0)
	holder, other := f.Client("holder"), f.Client("other")
	var held struct{ Lease struct{ Handle string } }
	farmtest.Structured(t, farmtest.MustCall(t, holder, "acquire_device", map[string]any{"serial": "web-wiped"}), &held)
	page := r.srv.URL + "/"
	farmtest.MustCall(t, holder, "app_launch", map[string]any{"serial": "web-wiped", "lease": held.Lease.Handle, "packageName": page})
	farmtest.MustCall(t, holder, "release_device", map[string]any{"serial": "web-wiped", "lease": held.Lease.Handle})

	for _, ms := range []int{1, 300} {
		res := farmtest.Call(t, other, "tap_xy", map[string]any{"serial": "web-wiped", "x": 0.5, "y": 0.02, "timeout_ms": ms})
		text := farmtest.Text(res)
		if res.IsError && (!strings.Contains(text, "timed out") || strings.Contains(text, "unhealthy") || strings.Contains(text, "failed") || strings.Contains(text, "did not stop")) {
			t.Fatalf("tap_xy with timeout_ms %d right after a release: %s; want it done, or timed out with the device well", ms, text)
		}
		t.Logf("tap_xy with timeout_ms %d right after a release: %s", ms, text)
	}
	waitState(t, f, "web-wiped", broker.StateOnline)
	res := farmtest.MustCall(t, other, "get_foreground_app", map[string]any{"serial": "web-wiped"})
	if text := farmtest.Text(res); strings.Contains(text, page) {
		t.Fatalf("the next caller found the last holder's page: %s", text)
	}
	waitState(t, f, "web-wiped", broker.StateOnline)
}

// A call that starts an elastic browser and whose deadline passes while Chromium starts
// returns without waiting for the start, which goes on in the background: it times out, and
// the device is neither marked unhealthy nor its actor restarted (stopping a Chromium that was
// starting took over a second on a loaded machine: "the driver did not stop after
// cancellation"). The start is held at a gate until the calls are answered, so their deadlines
// pass while it is under way however fast the machine, and a call that waited for the start
// would be answered only by the grace running out (unhurriedGrace: this test is not about how
// soon a loaded machine runs the goroutine that returns). The next call works.
func TestCancelledBrowserStartDoesNotMarkTheDeviceUnhealthy(t *testing.T) {
	gate := gateChromium(t)
	d := startBrowserWith(t, Options{Serial: "web-cold", Lazy: true, Idle: time.Hour})
	f := browserFarm(t, d, unhurriedGrace)
	c := f.Client("caller")
	// The first call in time to reach the driver starts the browser, the next waits for that
	// start; longer deadlines until both did, in case a loaded machine let one pass first.
	still := 0
	for _, ms := range []int{50, 300, 1000, 3000, 10000} {
		res := farmtest.Call(t, c, "tap_xy", map[string]any{"serial": "web-cold", "x": 0.5, "y": 0.5, "timeout_ms": ms})
		text := farmtest.Text(res)
		t.Logf("tap_xy with timeout_ms %d on a browser held at its start: %s", ms, text)
		if !res.IsError || !strings.Contains(text, "timed out") || strings.Contains(text, "unhealthy") || strings.Contains(text, "did not stop") {
			t.Fatalf("tap_xy with timeout_ms %d on a browser held at its start: %s; want timed out with the device well", ms, text)
		}
		waitState(t, f, "web-cold", broker.StateOnline)
		if strings.Contains(text, "still starting") {
			if still++; still == 2 {
				break
			}
		}
	}
	if still < 2 {
		t.Fatalf("%d calls timed out saying the browser was still starting, want 2", still)
	}
	farmtest.Eventually(t, 30*time.Second, gate.Reached, "the browser's start held at the gate")
	if d.Running() {
		t.Fatal("the browser runs while its start is held at the gate")
	}
	gate.Open()
	farmtest.MustCall(t, c, "tap_xy", map[string]any{"serial": "web-cold", "x": 0.5, "y": 0.5, "timeout_ms": 60000})
	waitState(t, f, "web-cold", broker.StateOnline)
}

// unhurriedGrace is a grace period far longer than a loaded machine takes to run a driver's
// return after its cancellation (300 ms was not always enough at load 20 on 2 cores), for
// tests that tell a driver that returns from one that waits otherwise than by the clock.
const unhurriedGrace = 10 * time.Second
