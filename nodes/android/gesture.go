package android

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// The timing of gestures written to the touchscreen, kept by the host.
const (
	// tapHold is how long a tap's finger rests on the screen. `input tap` lifts at once (down
	// and up share one event time) and apps take that as a tap; a short rest keeps the two
	// reports apart, far under the 100 ms after which a touch may start a scroll or a press.
	// Longer would only make every call slower (a tap_xy returns once the finger is up).
	tapHold = 10 * time.Millisecond
	// doubleTapPause is the time between a double tap's first lift and its second touch:
	// Android takes two taps for a double tap when that time is 40–300 ms, as the phone sees
	// it. The middle of that window leaves the most room for the adb link's jitter either way:
	// a lift delayed on a busy host and a second touch that is not arrive 130 ms closer.
	doubleTapPause = 170 * time.Millisecond
	// moveEvery is the time between a swipe's moves: about the 120 Hz a touch panel reports at.
	moveEvery = 8 * time.Millisecond
	// dragHold is the least a drag holds before it moves: the hold the drag tool asks and
	// says, one number (device.DragHold says why 600 ms).
	dragHold = device.DragHold
)

// tapAt touches p for hold (tapHold when 0) and lifts.
func tapAt(ctx context.Context, f *finger, p panelPoint, hold time.Duration) error {
	if hold <= 0 {
		hold = tapHold
	}
	if err := f.press(p); err != nil {
		return err
	}
	if err := sleep(ctx, hold); err != nil {
		return err
	}
	return f.lift()
}

// doubleTapAt taps p twice, doubleTapPause apart.
func doubleTapAt(ctx context.Context, f *finger, p panelPoint) error {
	if err := tapAt(ctx, f, p, 0); err != nil {
		return err
	}
	if err := sleep(ctx, doubleTapPause); err != nil {
		return err
	}
	return tapAt(ctx, f, p, 0)
}

// swipeFrom touches from, holds for hold, then moves to to in steps of moveEvery spread over
// dur, and lifts there. The moves keep to the schedule from the first one, however long each
// write takes.
func swipeFrom(ctx context.Context, f *finger, from, to panelPoint, dur, hold time.Duration) error {
	if err := f.press(from); err != nil {
		return err
	}
	if hold > 0 {
		if err := sleep(ctx, hold); err != nil {
			return err
		}
	}
	steps := max(1, int(dur/moveEvery))
	start := time.Now()
	for i := 1; i <= steps; i++ {
		if err := sleep(ctx, time.Until(start.Add(dur*time.Duration(i)/time.Duration(steps)))); err != nil {
			return err
		}
		if err := f.move(between(from, to, i, steps)); err != nil {
			return err
		}
	}
	return f.lift()
}

// between is the point i/n of the way from a to b.
func between(a, b panelPoint, i, n int) panelPoint {
	at := func(u, v int32) int32 { return int32(int64(u) + (int64(v)-int64(u))*int64(i)/int64(n)) }
	return panelPoint{at(a.x, b.x), at(a.y, b.y)}
}
