package rig

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/corral-farm/corral/arm/calib"
	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

// Timing of the composite gestures, as PhysiClaw's.
const (
	doubleTapGap = 150 * time.Millisecond // from the first tap's start to the second's
	stopTimeout  = 10 * time.Second       // a failed gesture's Stop, on a context of its own
)

// run runs one gesture: it refuses while the rig cannot move, then runs program and a
// barrier, so it returns once the finger is up. When anything fails or ctx ends, the rig is
// stopped with the finger up before run returns.
func (d *Driver) run(ctx context.Context, op string, program func(ctx context.Context, cal *calib.Calibration, c *grbl.Client) error) error {
	cal, err := d.calibration(op)
	if err != nil {
		return err
	}
	d.gesture.Lock()
	defer d.gesture.Unlock()
	if err := d.ready(op); err != nil {
		return err
	}
	if err := d.answering(ctx, op, answerWait); err != nil {
		return err
	}
	if err := d.restAbandoned(ctx, op); err != nil {
		return err
	}
	d.moves.Add(1)
	defer d.lifted() // a failed gesture is stopped with the finger up too
	err = program(ctx, cal, d.arm)
	if err == nil {
		err = d.arm.Barrier(ctx)
	}
	if err == nil {
		return nil
	}
	cause, hint := d.afterFailure(ctx, op, err)
	return d.wrap(op, cause, hint)
}

// stoppedMidGesture is the error of a gesture whose context ended and which was stopped,
// the finger up: it wraps the context's error.
type stoppedMidGesture struct{ ctxErr error }

func (e stoppedMidGesture) Error() string { return "stopped mid-gesture, the finger up" }
func (e stoppedMidGesture) Unwrap() error { return e.ctxErr }

// afterFailure stops the rig, the finger up, after gesture op failed with err, and says what
// the failure is: stoppedMidGesture when ctx ended and the rig stopped; the controller's
// silence, with what to do, when it answered nothing (silent.go); else err.
func (d *Driver) afterFailure(ctx context.Context, op string, err error) (cause error, hint string) {
	silence := silentAfter
	if ctx.Err() != nil {
		silence = silentAtCut // cut short: the farm's grace runs
	}
	stopErr := d.stop(op, err, silence)
	var silent *grbl.SilentError
	switch {
	case stopErr == nil && ctx.Err() != nil:
		// Cut short on purpose (an abort, a deadline, emergency_stop): the line the
		// controller was at is no news, and "it may still run" would be wrong once stopped.
		return stoppedMidGesture{ctx.Err()}, ""
	case errors.As(stopErr, &silent):
		return silent, hintSilent // the cause, whatever the gesture's line says
	}
	return err, ""
}

// stop brings the rig to rest with the finger up after a failed gesture; it fails when it did
// not. A controller silent for silence is not waited for (it would confirm nothing within
// stopTimeout, past the farm's grace): the rig is marked silent (silenced) and the error says
// so (a *grbl.SilentError).
func (d *Driver) stop(op string, cause error, silence time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := d.arm.Err(); err != nil {
		return err // nothing reaches the controller; a lost link resets an Arduino GRBL anyway
	}
	ctx, done := d.unlessSilent(ctx, silence)
	defer done()
	err := d.stopNow(ctx)
	if silent := context.Cause(ctx); errors.Is(silent, grbl.ErrSilent) {
		d.silenced(silent)
		return silent
	}
	if err != nil {
		d.log.Error("rig did not stop cleanly after a failed gesture: check that the finger is up", "op", op, "cause", cause, "err", err)
		return err
	}
	d.log.Warn("gesture failed; rig stopped with the finger up", "op", op, "cause", cause)
	return nil
}

// stopNow is stop's hold, reset and, for a Z finger, its lift.
func (d *Driver) stopNow(ctx context.Context) error {
	st, err := d.arm.Stop(ctx)
	if err == nil && d.cfg.Finger.Z {
		if st.State == grbl.StateAlarm {
			_, err = d.arm.Recover(ctx)
		}
		if err == nil {
			err = d.cfg.Finger.up(ctx, d.arm)
		}
	}
	return err
}

// Tap touches p for hold (a plain tap when 0).
func (d *Driver) Tap(ctx context.Context, p device.Point, hold time.Duration) error {
	const op = "tap"
	if hold < 0 || hold > time.Minute {
		return d.wrap(op, ErrBadInput, fmt.Sprintf("hold %s must be between 0 and 1m", hold))
	}
	return d.run(ctx, op, func(ctx context.Context, cal *calib.Calibration, c *grbl.Client) error {
		at, err := d.toGantry(op, cal, p)
		if err != nil {
			return err
		}
		return d.touch(ctx, c, at, max(hold, d.cfg.TapHold))
	})
}

// DoubleTap taps p twice, the second touch doubleTapGap after the first. Both touches are
// one program (grbl.Program): the controller times them, not the host's round trips between
// lines. Line by line, a loaded host stretched the first touch's hold and the gap after it
// (the twin saw a tap held 220 ms, then a second tap, not a double tap): a phone takes a
// second tap for a double tap only within 300 ms of the first.
func (d *Driver) DoubleTap(ctx context.Context, p device.Point) error {
	const op = "double tap"
	return d.run(ctx, op, func(ctx context.Context, cal *calib.Calibration, c *grbl.Client) error {
		at, err := d.toGantry(op, cal, p)
		if err != nil {
			return err
		}
		if err := c.Rapid(ctx, at.X, at.Y); err != nil {
			return err
		}
		f, hold := d.cfg.Finger, min(d.cfg.TapHold, doubleTapGap/3)
		taps := c.Program()
		f.touchInto(taps, hold)
		if gap := doubleTapGap - f.touchTakes(hold); gap > 0 {
			taps.Dwell(gap)
		}
		f.touchInto(taps, hold)
		if taps.Err() == nil {
			return taps.Send(ctx)
		}
		// A Z finger's long lines may not fit GRBL's receive buffer together: a program
		// each, the holds still the controller's.
		for range 2 {
			one := c.Program()
			f.touchInto(one, hold)
			if err := one.Send(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// touch travels to at, puts the finger down for hold and lifts it.
func (d *Driver) touch(ctx context.Context, c *grbl.Client, at geom.Point, hold time.Duration) error {
	if err := c.Rapid(ctx, at.X, at.Y); err != nil {
		return err
	}
	if err := d.cfg.Finger.down(ctx, c); err != nil {
		return err
	}
	if err := c.Dwell(ctx, hold); err != nil {
		return err
	}
	return d.cfg.Finger.up(ctx, c)
}

// Swipe puts the finger down at from, holds it there for hold (a drag), moves it to to in
// about dur, and lifts it.
func (d *Driver) Swipe(ctx context.Context, from, to device.Point, dur, hold time.Duration) error {
	const op = "swipe"
	if dur < 0 || hold < 0 || dur > time.Minute || hold > time.Minute {
		return d.wrap(op, ErrBadInput, fmt.Sprintf("duration %s and hold %s must be between 0 and 1m", dur, hold))
	}
	return d.run(ctx, op, func(ctx context.Context, cal *calib.Calibration, c *grbl.Client) error {
		a, err := d.toGantry(op, cal, from)
		if err != nil {
			return err
		}
		b, err := d.toGantry(op, cal, to)
		if err != nil {
			return err
		}
		return d.stroke(ctx, c, a, b, dur, hold)
	})
}

// stroke is a swipe in millimetres.
func (d *Driver) stroke(ctx context.Context, c *grbl.Client, a, b geom.Point, dur, hold time.Duration) error {
	if err := c.Rapid(ctx, a.X, a.Y); err != nil {
		return err
	}
	if err := d.cfg.Finger.down(ctx, c); err != nil {
		return err
	}
	if hold > 0 {
		if err := c.Dwell(ctx, hold); err != nil {
			return err
		}
	}
	if err := c.MoveTo(ctx, b.X, b.Y, d.feed(dist(a, b), dur)); err != nil {
		return err
	}
	return d.cfg.Finger.up(ctx, c)
}

// feed is the feed rate (mm/min) that covers dist millimetres in dur, capped at MaxFeed.
func (d *Driver) feed(dist float64, dur time.Duration) float64 {
	if dur <= 0 || dist <= 0 {
		return d.cfg.MaxFeed
	}
	f := dist / dur.Minutes()
	if f > d.cfg.MaxFeed {
		d.log.Debug("swipe capped at the rig's max feed", "asked_mm_min", f, "max_feed", d.cfg.MaxFeed)
		return d.cfg.MaxFeed
	}
	return f
}
