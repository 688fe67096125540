package android

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// doubleTapGap is the pause between the starts of a double tap's two taps: inside Android's
// double-tap window (40–300 ms between the taps), with room for jitter either side.
const doubleTapGap = 150 * time.Millisecond

// Tap touches p: `input tap X Y`, or `input swipe X Y X Y MS` when the finger holds.
func (d *Driver) Tap(ctx context.Context, p device.Point, hold time.Duration) error {
	const op = "tap"
	if err := checkPoints(p); err != nil {
		return d.fail(ctx, op, err, "")
	}
	cmd := fmt.Sprintf("input tap %d %d", p.X, p.Y)
	if ms := millis(hold); ms > 0 {
		cmd = fmt.Sprintf("input swipe %d %d %d %d %d", p.X, p.Y, p.X, p.Y, ms)
	}
	return d.input(ctx, op, cmd)
}

// DoubleTap taps p twice in one shell command, the first `input tap` in the background:
// `input tap X Y & sleep 0.15; input tap X Y; wait`. Each `input` starts a Java process
// (0.2–0.5 s on a phone) before it taps, so two taps one after the other land too far apart
// for Android to see a double tap; started 150 ms apart, their starts overlap and the taps
// land about 150 ms apart.
func (d *Driver) DoubleTap(ctx context.Context, p device.Point) error {
	const op = "double tap"
	if err := checkPoints(p); err != nil {
		return d.fail(ctx, op, err, "")
	}
	tap := fmt.Sprintf("input tap %d %d", p.X, p.Y)
	return d.input(ctx, op, fmt.Sprintf("%s & sleep %g; %s; wait", tap, doubleTapGap.Seconds(), tap))
}

// Swipe moves a finger from one point to another over dur: `input swipe X1 Y1 X2 Y2 MS`. With
// hold > 0 it is a drag, `input draganddrop X1 Y1 X2 Y2 MS`, where Android itself holds for
// its long-press time before moving (so hold's length is not sent).
func (d *Driver) Swipe(ctx context.Context, from, to device.Point, dur, hold time.Duration) error {
	op, verb := "swipe", "swipe"
	if hold > 0 {
		op, verb = "drag", "draganddrop"
	}
	if err := checkPoints(from, to); err != nil {
		return d.fail(ctx, op, err, "")
	}
	if sdk, err := strconv.Atoi(d.info.SDK); hold > 0 && err == nil && sdk < dragSDK {
		return d.fail(ctx, op, fmt.Errorf("%w: a drag is `input draganddrop`, which Android 11 (SDK %d) added; this device runs Android %s (SDK %d)",
			ErrCommandFailed, dragSDK, d.info.Release, sdk), "swipe without a hold works on every Android; nothing was sent")
	}
	return d.input(ctx, op, fmt.Sprintf("input %s %d %d %d %d %d", verb, from.X, from.Y, to.X, to.Y, millis(dur)))
}

// dragSDK is the first SDK level whose `input` has draganddrop (Android 11).
const dragSDK = 30

// millis rounds t to whole milliseconds; negative durations are 0.
func millis(t time.Duration) int64 {
	if t <= 0 {
		return 0
	}
	return t.Round(time.Millisecond).Milliseconds()
}

// checkPoints refuses negative coordinates, which no screen has.
func checkPoints(ps ...device.Point) error {
	for _, p := range ps {
		if p.X < 0 || p.Y < 0 {
			return fmt.Errorf("%w: point (%d, %d) is off the screen", ErrBadArgument, p.X, p.Y)
		}
	}
	return nil
}
