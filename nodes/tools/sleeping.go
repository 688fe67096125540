package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// MaxSleep bounds sleep and sleep_ms. A sleep runs on the device as a task, so it holds the
// device (and renews its lease) for as long as it lasts.
const MaxSleep = time.Hour

// sleepTimeout is the deadline of the sleep tools: the sleep itself bounds them.
const sleepTimeout = MaxSleep + time.Minute

// sleepFor waits d or until ctx ends, reporting progress (in seconds) every tick and at the end.
// progress may be nil.
func sleepFor(ctx context.Context, d time.Duration, progress func(done, total float64, msg string)) error {
	// About ten reports per sleep, at most one a second and at least 100 ms apart: a short
	// sleep shows it is moving, a long one does not flood the client.
	tick := min(max(d/10, 100*time.Millisecond), time.Second)
	report := func(done time.Duration) {
		if progress != nil {
			progress(done.Seconds(), d.Seconds(), fmt.Sprintf("slept %.1fs of %.1fs", done.Seconds(), d.Seconds()))
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sleep not started: %w", err)
	}
	start := time.Now()
	timer := time.NewTimer(d)
	defer timer.Stop()
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("sleep stopped after %s of %s: %w", time.Since(start).Round(time.Millisecond), d, ctx.Err())
		case <-timer.C:
			report(d)
			return nil
		case <-ticker.C:
			// A tick due with the timer ends the sleep itself: reporting d here and again for
			// the timer would repeat a value, and progress must increase.
			if done := time.Since(start); done < d {
				report(done)
			} else {
				report(d)
				return nil
			}
		}
	}
}

// sleepLasts is a sleep tool's Lasts: the length its argument key gives, in unit; 0 when the
// arguments do not say (the task refuses them as it runs).
func sleepLasts(key string, unit time.Duration) func(json.RawMessage) time.Duration {
	return func(args json.RawMessage) time.Duration {
		var a map[string]json.RawMessage
		var n float64
		if json.Unmarshal(args, &a) != nil || json.Unmarshal(a[key], &n) != nil || n <= 0 || n > float64(MaxSleep/unit) {
			return 0
		}
		return time.Duration(n * float64(unit))
	}
}
