package android

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// Touches are written to the touchscreen's event device when the driver found one it may write
// (see setupInput): no process starts on the phone, so a touch lands within milliseconds and
// the host keeps its timing. Otherwise, and for a call whose event stream failed twice, they
// are `input` commands (touch_input.go).

// Tap touches p: a finger down for tapHold, or for hold when it holds (a long press).
func (d *Driver) Tap(ctx context.Context, p device.Point, hold time.Duration) error {
	const op = "tap"
	if err := checkPoints(p); err != nil {
		return d.fail(ctx, op, err, "")
	}
	if d.touch != nil {
		done, err := d.touchEvents(ctx, op, []device.Point{p}, func(ctx context.Context, f *finger, at []panelPoint) error {
			return tapAt(ctx, f, at[0], hold)
		})
		if done {
			return err
		}
	}
	return d.tapInput(ctx, op, p, hold)
}

// DoubleTap taps p twice: the second touch doubleTapPause after the first lifts, inside
// Android's double-tap window (40–300 ms between them).
func (d *Driver) DoubleTap(ctx context.Context, p device.Point) error {
	const op = "double tap"
	if err := checkPoints(p); err != nil {
		return d.fail(ctx, op, err, "")
	}
	if d.touch != nil {
		done, err := d.touchEvents(ctx, op, []device.Point{p}, func(ctx context.Context, f *finger, at []panelPoint) error {
			return doubleTapAt(ctx, f, at[0])
		})
		if done {
			return err
		}
	}
	return d.doubleTapInput(ctx, op, p)
}

// Swipe moves a finger from one point to another over dur. With hold > 0 it is a drag: the
// finger holds for hold, and at least dragHold (a long press, for Android), before it moves.
func (d *Driver) Swipe(ctx context.Context, from, to device.Point, dur, hold time.Duration) error {
	op := "swipe"
	if hold > 0 {
		op = "drag"
	}
	if err := checkPoints(from, to); err != nil {
		return d.fail(ctx, op, err, "")
	}
	if d.touch != nil {
		if hold > 0 {
			hold = max(hold, dragHold)
		}
		done, err := d.touchEvents(ctx, op, []device.Point{from, to}, func(ctx context.Context, f *finger, at []panelPoint) error {
			return swipeFrom(ctx, f, at[0], at[1], max(dur, 0), hold)
		})
		if done {
			return err
		}
	}
	return d.swipeInput(ctx, op, from, to, dur, hold)
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
