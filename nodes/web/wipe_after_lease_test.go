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
// returns within the grace period, the start given up in the background: it times out, and
// the device is neither marked unhealthy nor its actor restarted (stopping a Chromium that is
// starting took over a second on a loaded machine: "the driver did not stop after
// cancellation"). Deadlines from before the process starts to after it, until a call is in
// time; the next call works.
func TestCancelledBrowserStartDoesNotMarkTheDeviceUnhealthy(t *testing.T) {
	d := startBrowserWith(t, Options{Serial: "web-cold", Lazy: true, Idle: time.Hour})
	f := browserFarm(t, d, 300*time.Millisecond)
	c := f.Client("caller")
	for _, ms := range []int{50, 300, 600, 900, 1200, 1800, 2500} {
		res := farmtest.Call(t, c, "tap_xy", map[string]any{"serial": "web-cold", "x": 0.5, "y": 0.5, "timeout_ms": ms})
		text := farmtest.Text(res)
		t.Logf("tap_xy with timeout_ms %d on a stopped browser: %s", ms, text)
		if !res.IsError {
			break
		}
		if !strings.Contains(text, "timed out") || strings.Contains(text, "unhealthy") || strings.Contains(text, "did not stop") {
			t.Fatalf("tap_xy with timeout_ms %d on a stopped browser: %s; want it done, or timed out with the device well", ms, text)
		}
		waitState(t, f, "web-cold", broker.StateOnline)
	}
	farmtest.MustCall(t, c, "tap_xy", map[string]any{"serial": "web-cold", "x": 0.5, "y": 0.5, "timeout_ms": 60000})
	waitState(t, f, "web-cold", broker.StateOnline)
}
