package ios

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A swipe through the driver lasts as long as asked, on the simulated iPhone as on a real one;
// a deadline shorter than the swipe ends the call at the deadline. (That the phone finishes it
// all the same is TestCallAfterAnAbortedSwipeWaitsForIt, and wdasim's TestCancelledGestureRunsToItsEnd.)
func TestSwipeTakesItsDuration(t *testing.T) {
	sims, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	phone := sims.Devices()[0].Phone
	from, to := device.Point{X: 375, Y: 1000}, device.Point{X: 375, Y: 400}

	const dur, hold = 400 * time.Millisecond, 100 * time.Millisecond
	start := time.Now()
	if err := d.Swipe(t.Context(), from, to, dur, hold); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < dur+hold {
		t.Errorf("a swipe of %s after a hold of %s returned after %s", dur, hold, took)
	}
	if log := phone.InputLog(); len(log) == 0 || log[len(log)-1] != "swipe 375 1000 375 400 dur=400ms hold=100ms" {
		t.Errorf("the phone's input log ends %q", log[max(0, len(log)-1):])
	}

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	err := d.Swipe(ctx, from, to, time.Minute, 0)
	if took := time.Since(start); err == nil || took > 30*time.Second {
		t.Fatalf("a minute's swipe with a 200 ms deadline: %v after %s; want an error at the deadline", err, took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the swipe cut short says %v; want the deadline", err)
	}
}

// A swipe whose caller gave up still runs to its end on the phone (WebDriverAgent cannot take a
// gesture back), and the device's next call waits for that end in WDA, which runs one command at
// a time. The supervisor's probe, waiting behind the swipe too, does not take WDA for dead: it
// is not restarted, and the device stays online.
func TestCallAfterAnAbortedSwipeWaitsForIt(t *testing.T) {
	sims, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	phone := sims.Devices()[0].Phone
	restarts := d.Gauges()["wda_restarts"]

	// Longer than a probe's wait and its timeout together, so a probe lands behind it.
	const dur = probeEvery + probeTimeout + time.Second
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := d.Swipe(ctx, device.Point{X: 375, Y: 1000}, device.Point{X: 375, Y: 400}, dur, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a %s swipe with a 200 ms deadline: %v; want the deadline", dur, err)
	}
	if _, err := d.ForegroundApp(t.Context()); err != nil {
		t.Fatalf("the call after the aborted swipe: %v", err)
	}
	if took := time.Since(start); took < dur {
		t.Errorf("the call after the aborted swipe returned %s after it began, before its %s end", took, dur)
	}
	if log := phone.InputLog(); len(log) == 0 || log[len(log)-1] != "swipe 375 1000 375 400 dur=6s hold=0s" {
		t.Errorf("the phone's input log ends %q; want the whole swipe", log[max(0, len(log)-1):])
	}
	if err, _ := reg.healthOf("ios-sim-01"); err != nil {
		t.Errorf("the device after the swipe: %v", err)
	}
	if got := d.Gauges()["wda_restarts"]; got != restarts {
		t.Errorf("WebDriverAgent restarted %v times while the swipe ran", got-restarts)
	}
}
