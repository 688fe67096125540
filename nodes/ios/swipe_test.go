package ios

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A swipe through the driver lasts as long as asked, on the simulated iPhone as on a real one;
// a deadline shorter than the swipe ends the call at the deadline. (That WebDriverAgent's side
// ends with the request is wdasim's TestCancelledGestureEnds.)
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
