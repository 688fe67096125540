package tools

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// PhysiClaw swipes (bbox mode): the length is a size class in centimetres, converted to pixels
// through the screen density, and the speed is how long the move takes, whatever its length.
var (
	swipeSizes  = map[string]float64{"s": 1, "m": 2, "l": 4, "xl": 6, "xxl": 8}
	swipeSpeeds = map[string]time.Duration{
		"slow":   1000 * time.Millisecond, // a deliberate drag: lists scroll by about the distance moved
		"medium": 400 * time.Millisecond,  // an ordinary scroll
		"fast":   150 * time.Millisecond,  // a flick: lists keep scrolling after the finger lifts
	}
)

const (
	defaultSwipeSize  = "m"
	defaultSwipeSpeed = "medium"
	// FallbackDensity is the screen density (dpi) assumed when a driver cannot tell its own;
	// 420 is a common modern phone's.
	FallbackDensity = 420
	minDensity      = 72
	maxDensity      = 1200
)

// swipeUnits are the pixel steps of each direction.
var swipeUnits = map[string][2]int{"up": {0, -1}, "down": {0, 1}, "left": {-1, 0}, "right": {1, 0}}

// bboxSwipe is the PhysiClaw swipe: from the bbox's centre, size centimetres in direction,
// clamped to the screen, over the speed's duration.
func bboxSwipe(ctx context.Context, t *Task, a *SwipeArgs) (SwipeResult, error) {
	size, speed := cmp.Or(a.Size, defaultSwipeSize), cmp.Or(a.Speed, defaultSwipeSpeed)
	s, err := t.Driver.ScreenSize(ctx)
	if err != nil {
		return SwipeResult{}, err
	}
	dpi, densityNote, err := screenDensity(ctx, t.Driver)
	if err != nil {
		return SwipeResult{}, err
	}
	cx, cy := bboxCentre(a.BBox)
	from := device.Point{X: scale(cx, s.Width), Y: scale(cy, s.Height)}
	cm := swipeSizes[size]
	want := int(math.Round(cm / 2.54 * float64(dpi)))
	u := swipeUnits[a.Direction]
	to := device.Point{X: max(0, min(s.Width-1, from.X+u[0]*want)), Y: max(0, min(s.Height-1, from.Y+u[1]*want))}
	moved := abs(to.X-from.X) + abs(to.Y-from.Y)
	if moved == 0 {
		return SwipeResult{}, BadInput("the bbox's centre, pixel (%d, %d), is on the screen's edge: a swipe %s from there moves nowhere; pick a bbox away from that edge",
			from.X, from.Y, a.Direction)
	}
	dur := swipeSpeeds[speed]
	if err := t.aimAtBBox(ctx, a.BBox); err != nil {
		return SwipeResult{}, err
	}
	if err := t.swipeFrom(ctx, from, to, dur, 0); err != nil {
		return SwipeResult{}, err
	}
	msg := fmt.Sprintf("swiped %s from the centre of [%.3f, %.3f, %.3f, %.3f]: pixel (%d, %d) to (%d, %d), size %s = %g cm = %d px at %d dpi, speed %s = %s",
		a.Direction, a.BBox[0], a.BBox[1], a.BBox[2], a.BBox[3], from.X, from.Y, to.X, to.Y, size, cm, want, dpi, speed, dur)
	if took := t.swipeTook(from, to, dur); took > dur {
		msg += fmt.Sprintf("; took %s at the device's top speed", took)
		dur = took
	}
	if moved < want {
		msg += fmt.Sprintf("; shortened to %d px to stay on the screen", moved)
	}
	if densityNote != "" {
		msg += "; " + densityNote
	}
	return SwipeResult{Message: msg, Direction: a.Direction, BBox: a.BBox, Size: size, Speed: speed, DPI: dpi,
		DensityAssumed: densityNote != "", Clamped: moved < want, FromPixel: from, ToPixel: to,
		DurationMS: dur.Milliseconds(), Hint: hintSwipe}, nil
}

// screenDensity asks the driver for its density. When it cannot tell (no DensityReporter, an
// error, an implausible answer) it returns FallbackDensity and a note saying so; the error is
// only for a cancelled ctx.
func screenDensity(ctx context.Context, drv device.Driver) (dpi int, note string, err error) {
	dr, ok := drv.(device.DensityReporter)
	if !ok {
		return FallbackDensity, fmt.Sprintf("the device cannot report its screen density, %d dpi assumed", FallbackDensity), nil
	}
	dpi, err = dr.Density(ctx)
	switch {
	case ctx.Err() != nil:
		return 0, "", ctx.Err()
	case err != nil:
		return FallbackDensity, fmt.Sprintf("the screen density query failed (%v), %d dpi assumed", err, FallbackDensity), nil
	case dpi < minDensity || dpi > maxDensity:
		return FallbackDensity, fmt.Sprintf("the device reported an implausible %d dpi, %d dpi assumed", dpi, FallbackDensity), nil
	}
	return dpi, "", nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
