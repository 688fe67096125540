package ios

import (
	"context"
	"time"
)

// gestureSent notes that a gesture lasting dur goes to WebDriverAgent now. WDA runs one command
// at a time and cannot take a gesture back, so until it ends on the phone (even after its
// caller gave up) WDA answers nothing else: the supervisor's probe waits that much longer before
// it takes WDA's silence for death and restarts it.
func (d *Driver) gestureSent(dur time.Duration) {
	now := time.Now()
	d.gestureAt.Store(now.UnixNano())
	end := now.Add(dur).UnixNano()
	for {
		old := d.gestureEnd.Load()
		if end <= old || d.gestureEnd.CompareAndSwap(old, end) {
			return
		}
	}
}

// gestureLeft is how long the last gesture sent still runs on the phone.
func (d *Driver) gestureLeft() time.Duration {
	return max(0, time.Until(time.Unix(0, d.gestureEnd.Load())))
}

// behindGestures runs ask, a request to WebDriverAgent, with probeTimeout more than the gestures
// still going take; asked again when a gesture was sent while it waited (WDA answers it only
// after that gesture), so that a busy WDA is not taken for a dead one.
func (d *Driver) behindGestures(ctx context.Context, ask func(ctx context.Context) error) error {
	for {
		began := time.Now().UnixNano()
		actx, cancel := context.WithTimeout(ctx, probeTimeout+d.gestureLeft())
		err := ask(actx)
		cancel()
		if err == nil || ctx.Err() != nil || d.gestureAt.Load() < began {
			return err
		}
	}
}
