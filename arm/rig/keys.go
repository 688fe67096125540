package rig

import (
	"context"
	"fmt"
	"image"
	"math"
	"strings"
	"time"

	"github.com/corral-farm/corral/arm/calib"
	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

// The phone under an arm is an iPhone (the PhysiClaw seed's): it has no HOME or BACK button,
// only gestures, which PressKey makes with the finger.
const (
	homeSwipe = 200 * time.Millisecond // up from the bottom edge to 60% of the height
	backSwipe = 300 * time.Millisecond // right from the left edge to 60% of the width
	// Edge gestures start a hundredth of the screen in from the edge (1-2 mm), inside iOS's
	// edge zone: a finger sent to the very edge lands off the glass as often as on it.
	edgeIn = 100
)

// PressKey makes the gesture of a key: HOME swipes up from the bottom edge, BACK right from
// the left edge, WAKEUP taps a dark screen (an iPhone wakes to a tap). The rig has no other
// keys: it has one finger on the glass.
func (d *Driver) PressKey(ctx context.Context, key string) error {
	s, err := d.ScreenSize(ctx)
	if err != nil {
		return err
	}
	w, h := s.Width, s.Height
	switch strings.TrimPrefix(strings.ToUpper(key), "KEYCODE_") {
	case "HOME":
		return d.Swipe(ctx, device.Point{X: w / 2, Y: h - h/edgeIn}, device.Point{X: w / 2, Y: h * 2 / 5}, homeSwipe, 0)
	case "BACK":
		return d.Swipe(ctx, device.Point{X: w / edgeIn, Y: h / 2}, device.Point{X: w * 3 / 5, Y: h / 2}, backSwipe, 0)
	case "WAKEUP":
		return d.wake(ctx, s)
	}
	return d.wrap("press key", fmt.Errorf("%w: %q", ErrUnknownKey, key),
		"an arm makes HOME, BACK and WAKEUP as gestures; it cannot press the phone's side buttons")
}

// wake taps the middle of a dark screen, and leaves a lit one alone: a tap there would land on
// what it shows.
func (d *Driver) wake(ctx context.Context, s device.Size) error {
	img, err := d.Screenshot(ctx)
	if err != nil {
		return err
	}
	if !dark(img) {
		return nil
	}
	d.log.Info("rig: the screen is dark, tapping it awake")
	return d.Tap(ctx, device.Point{X: s.Width / 2, Y: s.Height / 2}, 0)
}

// dark says whether a frame shows a screen that is off: under 0.5 % of its pixels brighter than
// a third grey (a camera sees a dark screen grey with glare and noise; a lit one, even in dark
// mode, shows text or a clock).
func dark(img image.Image) bool {
	b := img.Bounds()
	step := max(1, min(b.Dx(), b.Dy())/100)
	lit, n := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			r, g, bl, _ := img.At(x, y).RGBA()
			if (299*r+587*g+114*bl)/1000 > 0x5000 {
				lit++
			}
			n++
		}
	}
	return lit*200 < n
}

// The app switcher gesture, as on an iPhone without a home button.
const (
	switcherPause = 600 * time.Millisecond // still at mid-screen before the lift: the switcher opens
	switcherOpen  = 400 * time.Millisecond // its cards settle
	cardFlick     = 150 * time.Millisecond // the front card swiped up and away
)

// QuitFrontApp force-quits the app in front as a person does on an iPhone: up from the bottom
// edge to mid-screen and a pause there open the app switcher, a flick up on the front card
// quits it, and the HOME swipe leaves the home screen showing.
func (d *Driver) QuitFrontApp(ctx context.Context) error {
	const op = "force quit"
	return d.run(ctx, op, func(ctx context.Context, cal *calib.Calibration, c *grbl.Client) error {
		w, h := cal.ScreenW, cal.ScreenH
		var mm [5]geom.Point
		for i, p := range []device.Point{{X: w / 2, Y: h - h/edgeIn}, {X: w / 2, Y: h / 2}, {X: w / 2, Y: h * 11 / 20}, {X: w / 2, Y: h / 10}, {X: w / 2, Y: h * 2 / 5}} {
			var err error
			if mm[i], err = d.toGantry(op, cal, p); err != nil {
				return err
			}
		}
		bottom, middle, card, top, homeEnd := mm[0], mm[1], mm[2], mm[3], mm[4]
		steps := []func() error{
			func() error { return c.Rapid(ctx, bottom.X, bottom.Y) },
			func() error { return d.cfg.Finger.down(ctx, c) },
			func() error { return c.MoveTo(ctx, middle.X, middle.Y, d.feed(dist(bottom, middle), homeSwipe)) },
			func() error { return c.Dwell(ctx, switcherPause) },
			func() error { return d.cfg.Finger.up(ctx, c) },
			func() error { return c.Dwell(ctx, switcherOpen) },
			func() error { return d.stroke(ctx, c, card, top, cardFlick, 0) },
			func() error { return c.Dwell(ctx, switcherOpen) },
			func() error { return d.stroke(ctx, c, bottom, homeEnd, homeSwipe, 0) },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
}

func dist(a, b geom.Point) float64 { return math.Hypot(b.X-a.X, b.Y-a.Y) }
