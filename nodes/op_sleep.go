package nodes

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// MaxSleep bounds sleep and sleep_ms. A sleep runs on the device as a task, so it holds the
// device (and renews its lease) for as long as it lasts.
const MaxSleep = time.Hour

// sleepTimeout is the deadline of the sleep ops: the sleep itself bounds them.
const sleepTimeout = MaxSleep + time.Minute

// SleepArgs are sleep's arguments (HttpRunner seed).
type SleepArgs struct {
	Seconds *float64 `json:"seconds"`
}

// Check validates the arguments.
func (a *SleepArgs) Check() error {
	if a.Seconds == nil {
		return errors.New("seconds is required: how long to wait, up to 3600")
	}
	if v := *a.Seconds; math.IsNaN(v) || v < 0 || v > MaxSleep.Seconds() {
		return fmt.Errorf("seconds must be between 0 and %g, got %v", MaxSleep.Seconds(), v)
	}
	return nil
}

// SleepMSArgs are sleep_ms' arguments (HttpRunner seed).
type SleepMSArgs struct {
	Milliseconds *int64 `json:"milliseconds"`
}

// Check validates the arguments.
func (a *SleepMSArgs) Check() error {
	if a.Milliseconds == nil {
		return fmt.Errorf("milliseconds is required: how long to wait, up to %d", MaxSleep.Milliseconds())
	}
	if v := *a.Milliseconds; v < 0 || v > MaxSleep.Milliseconds() {
		return fmt.Errorf("milliseconds must be between 0 and %d, got %d", MaxSleep.Milliseconds(), v)
	}
	return nil
}

// SleepResult is sleep's structured result (HttpRunner seed).
type SleepResult struct {
	Message string  `json:"message" jsonschema:"Success message confirming the sleep completed"`
	Seconds float64 `json:"seconds" jsonschema:"Duration of the sleep in seconds"`
}

// SleepMSResult is sleep_ms' structured result (HttpRunner seed).
type SleepMSResult struct {
	Message      string `json:"message" jsonschema:"Success message confirming the sleep completed"`
	Milliseconds int64  `json:"milliseconds" jsonschema:"Duration of the sleep in milliseconds"`
}

func opSleep() Op {
	return Op{Name: "sleep", Timeout: sleepTimeout, MaxTimeout: sleepTimeout,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a SleepArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			if err := sleepFor(ctx, seconds(*a.Seconds), time.Second, t.Progress); err != nil {
				return Output{}, err
			}
			return Output{Data: SleepResult{Message: fmt.Sprintf("slept %g seconds", *a.Seconds), Seconds: *a.Seconds}}, nil
		}}
}

func opSleepMS() Op {
	return Op{Name: "sleep_ms", Timeout: sleepTimeout, MaxTimeout: sleepTimeout,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a SleepMSArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			ms := *a.Milliseconds
			if err := sleepFor(ctx, time.Duration(ms)*time.Millisecond, time.Second, t.Progress); err != nil {
				return Output{}, err
			}
			return Output{Data: SleepMSResult{Message: fmt.Sprintf("slept %d milliseconds", ms), Milliseconds: ms}}, nil
		}}
}

// sleepFor waits d or until ctx ends, reporting progress (in seconds) every tick and at the end.
// progress may be nil.
func sleepFor(ctx context.Context, d, tick time.Duration, progress func(done, total float64, msg string)) error {
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
			report(min(time.Since(start), d))
		}
	}
}
