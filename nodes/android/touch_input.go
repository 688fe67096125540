package android

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// doubleTapGap is the pause between the starts of a double tap's two `input tap`s: inside
// Android's double-tap window (40–300 ms between the taps), with room for jitter either side.
const doubleTapGap = 150 * time.Millisecond

// tapInput touches p with `input tap X Y`, or `input swipe X Y X Y MS` when the finger holds.
func (d *Driver) tapInput(ctx context.Context, op string, p device.Point, hold time.Duration) error {
	cmd := fmt.Sprintf("input tap %d %d", p.X, p.Y)
	if ms := millis(hold); ms > 0 {
		cmd = fmt.Sprintf("input swipe %d %d %d %d %d", p.X, p.Y, p.X, p.Y, ms)
	}
	return d.input(ctx, op, cmd)
}

// doubleTapInput taps p twice in one shell command, the first `input tap` in the background:
// `input tap X Y & sleep 0.15; input tap X Y; wait`. Each `input` starts a Java process
// (0.1–1 s on a phone) before it taps, so two taps one after the other land too far apart
// for Android to see a double tap; started 150 ms apart, their starts overlap and the taps
// land about 150 ms apart.
func (d *Driver) doubleTapInput(ctx context.Context, op string, p device.Point) error {
	tap := fmt.Sprintf("input tap %d %d", p.X, p.Y)
	return d.input(ctx, op, fmt.Sprintf("%s & sleep %g; %s; wait", tap, doubleTapGap.Seconds(), tap))
}

// swipeInput is `input swipe X1 Y1 X2 Y2 MS`, or with hold > 0 a drag, `input draganddrop X1 Y1
// X2 Y2 MS`, where Android itself holds for its long-press time before moving (so hold's
// length is not sent).
func (d *Driver) swipeInput(ctx context.Context, op string, from, to device.Point, dur, hold time.Duration) error {
	verb := "swipe"
	if hold > 0 {
		verb = "draganddrop"
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
