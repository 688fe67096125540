package rig

import (
	"context"
	"time"
)

// A phone answers a tap late: iOS holds a single tap back about 300 ms in case a second one
// follows (a double tap), and animates what the tap opened after that. A gesture returns once
// the finger is up, so a frame taken at once shows the screen from before the tap, and an
// agent that peeks then taps again. A frame taken within Config.ScreenSettle of the last
// finger-up waits out the rest; one taken later (a second peek) does not wait.

// DefaultScreenSettle is Config.ScreenSettle's default: iOS's double-tap window and a frame.
const DefaultScreenSettle = 350 * time.Millisecond

// lifted records that a gesture has just ended, the finger up.
func (d *Driver) lifted() {
	now := time.Now()
	d.liftedAt.Store(&now)
}

// settleLeft is how long a frame taken at now waits for the screen to answer the last gesture.
func (d *Driver) settleLeft(now time.Time) time.Duration {
	at := d.liftedAt.Load()
	if at == nil {
		return 0
	}
	return max(at.Add(d.cfg.ScreenSettle).Sub(now), 0)
}

// settle waits until the screen has answered the last gesture, or ctx ends.
func (d *Driver) settle(ctx context.Context) error {
	wait := d.settleLeft(time.Now())
	if wait <= 0 {
		return nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
