package rig

import (
	"context"
	"image"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A screenshot right after a tap shows what the tap opened, not the screen before it: the
// twin's touch screen holds a single tap back for a double tap's second, as iOS does, and the
// tap returns once the finger is up. QA: tap the Clock icon, peek at once, 4 of 5 peeks showed
// the home screen, and the tap's hint told the agent to tap again.
func TestScreenshotRightAfterATapShowsItsAnswer(t *testing.T) {
	r := startRig(t, 5, true)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	home, err := r.d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The launcher's third icon, Clock (nodes/sim/screens.go: a 4-column grid from y = 700).
	if err := r.d.Tap(ctx, device.Point{X: 675, Y: 865}, 0); err != nil {
		t.Fatal(err)
	}
	first, err := r.d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for app, _ := r.tw.Phone.ForegroundApp(ctx); app != "com.corral.clock"; app, _ = r.tw.Phone.ForegroundApp(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("the Clock app never opened: %q in front; input %q", app, r.tw.Phone.InputLog())
		}
		time.Sleep(10 * time.Millisecond) // polling a condition
	}
	clock, err := r.d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	toHome, toClock := meanDiff(first, home), meanDiff(first, clock)
	if toClock >= toHome {
		t.Fatalf("the screenshot right after the tap is the home screen's (mean difference %.1f from home, %.1f from Clock's)", toHome, toClock)
	}
	// Once the screen has settled, a frame does not wait.
	if left := r.d.settleLeft(time.Now()); left != 0 {
		t.Errorf("a frame after a settled gesture waits %s", left)
	}
}

// settleLeft counts from the last finger-up: nothing before any gesture, the rest of
// ScreenSettle right after one, nothing once it has passed.
func TestSettleCountsFromTheLastFingerUp(t *testing.T) {
	d := &Driver{cfg: Config{Serial: "r"}.withDefaults()}
	now := time.Now()
	if left := d.settleLeft(now); left != 0 {
		t.Errorf("before any gesture: waits %s", left)
	}
	d.lifted()
	if left := d.settleLeft(time.Now()); left <= 0 || left > DefaultScreenSettle {
		t.Errorf("right after a gesture: waits %s, want (0, %s]", left, DefaultScreenSettle)
	}
	if left := d.settleLeft(time.Now().Add(DefaultScreenSettle)); left != 0 {
		t.Errorf("%s after a gesture: waits %s", DefaultScreenSettle, left)
	}
}

// meanDiff is the mean absolute difference of two images' grey levels (0-255).
func meanDiff(a, b image.Image) float64 {
	ra, rb := a.Bounds(), b.Bounds()
	w, h := min(ra.Dx(), rb.Dx()), min(ra.Dy(), rb.Dy())
	var sum float64
	for y := 0; y < h; y += 2 {
		for x := 0; x < w; x += 2 {
			sum += abs(grey(a.At(ra.Min.X+x, ra.Min.Y+y)) - grey(b.At(rb.Min.X+x, rb.Min.Y+y)))
		}
	}
	return sum / float64(((w+1)/2)*((h+1)/2))
}

func grey(c interface{ RGBA() (r, g, b, a uint32) }) float64 {
	r, g, b, _ := c.RGBA()
	return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 257
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
