package tools

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// MaxSleep bounds sleep and sleep_ms. A sleep runs on the device as a task, so it holds the
// device (and renews its lease) for as long as it lasts.
const MaxSleep = time.Hour

// sleepTimeout is the deadline of the sleep ops: the sleep itself bounds them.
const sleepTimeout = MaxSleep + time.Minute

// SleepArgs are sleep's arguments (HttpRunner seed).
type SleepArgs struct {
	Seconds *float64 `json:"seconds" arg:"required,min=0,max=3600" desc:"Seconds to wait" help:"how long to wait, up to 3600"`
}

// SleepMSArgs are sleep_ms' arguments (HttpRunner seed).
type SleepMSArgs struct {
	Milliseconds *int64 `json:"milliseconds" arg:"required,min=0,max=3600000" desc:"Milliseconds to wait" help:"how long to wait, up to 3600000"`
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
			if err := sleepFor(ctx, seconds(*a.Seconds), t.Progress); err != nil {
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
			if err := sleepFor(ctx, time.Duration(ms)*time.Millisecond, t.Progress); err != nil {
				return Output{}, err
			}
			return Output{Data: SleepMSResult{Message: fmt.Sprintf("slept %d milliseconds", ms), Milliseconds: ms}}, nil
		}}
}

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

// SleepRandomArgs are sleep_random's arguments (HttpRunner seed). params takes HttpRunner's
// forms, in seconds: [s] sleeps s; [min, max] sleeps a uniformly random time between them;
// [min1, max1, weight1, min2, max2, weight2, ...] first picks a range with probability
// proportional to its weight, then a time within it.
type SleepRandomArgs struct {
	Params []float64 `json:"params" arg:"required,minItems=1,maxItems=30,itemMin=0,itemMax=3600" desc:"Seconds: [s], [min, max], or [min, max, weight, ...] triples" help:"[seconds], [min, max] or [min1, max1, weight1, min2, max2, weight2, ...] in seconds"`
}

// Check validates the arguments.
func (a *SleepRandomArgs) Check() error {
	p := a.Params
	const forms = "[seconds], [min, max] or [min1, max1, weight1, min2, max2, weight2, ...] in seconds"
	if n := len(p); n != 1 && n != 2 && n%3 != 0 {
		return fmt.Errorf("params has %d numbers; give %s", n, forms)
	}
	if len(p) == 2 && p[0] > p[1] {
		return fmt.Errorf("params [min, max] needs min <= max, got [%g, %g]", p[0], p[1])
	}
	if len(p)%3 == 0 {
		total := 0.0
		for i := 0; i < len(p); i += 3 {
			if p[i] > p[i+1] {
				return fmt.Errorf("range %d of params needs min <= max, got [%g, %g]", i/3+1, p[i], p[i+1])
			}
			total += p[i+2]
		}
		if total <= 0 {
			return errors.New("params' weights (every third number) must not all be zero")
		}
	}
	return nil
}

// pick chooses a duration in seconds from checked params; r returns a number in [0, 1).
func (a *SleepRandomArgs) pick(r func() float64) float64 {
	p := a.Params
	switch len(p) {
	case 1:
		return p[0]
	case 2:
		return p[0] + r()*(p[1]-p[0])
	}
	total := 0.0
	for i := 2; i < len(p); i += 3 {
		total += p[i]
	}
	x, last := r()*total, 0
	for i := 0; i < len(p); i += 3 {
		if p[i+2] == 0 {
			continue
		}
		last = i
		if x < p[i+2] {
			break
		}
		x -= p[i+2]
	}
	return p[last] + r()*(p[last+1]-p[last])
}

// SleepRandomResult is sleep_random's structured result (HttpRunner seed).
type SleepRandomResult struct {
	Message        string    `json:"message" jsonschema:"Success message confirming the random sleep completed"`
	Params         []float64 `json:"params" jsonschema:"Parameters used to pick the random duration"`
	ActualDuration float64   `json:"actualDuration" jsonschema:"Duration actually slept, in seconds"`
}

func opSleepRandom() Op {
	return Op{Name: "sleep_random", Timeout: sleepTimeout, MaxTimeout: sleepTimeout,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a SleepRandomArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d := time.Duration(a.pick(rand.Float64) * float64(time.Second))
			if err := sleepFor(ctx, d, t.Progress); err != nil {
				return Output{}, err
			}
			return Output{Data: SleepRandomResult{Message: fmt.Sprintf("slept %s, picked at random from %v", d.Round(time.Millisecond), a.Params),
				Params: a.Params, ActualDuration: d.Seconds()}}, nil
		}}
}

func sleep() Tool {
	return NewTool[SleepArgs, SleepResult](Tool{Description: "Wait on the device (it stays yours and busy). Reports progress; abort_task ends it.",
		Hints: ReadOnly, Profiles: []string{HttpRunner}, Progress: true,
		Short: Short{Kind: ShortSeconds, Keys: []string{"seconds"}, Usage: "seconds (a number)"}}).withOp(opSleep())
}

func sleepMS() Tool {
	return NewTool[SleepMSArgs, SleepMSResult](Tool{Description: "Wait a number of milliseconds on the device, as sleep does.",
		Hints: ReadOnly, Profiles: []string{HttpRunner}, Progress: true,
		Short: Short{Kind: ShortWhole, Keys: []string{"milliseconds"}, Usage: "milliseconds (a whole number)"}}).withOp(opSleepMS())
}

func sleepRandom() Tool {
	return NewTool[SleepRandomArgs, SleepRandomResult](Tool{Description: "Wait a random time, as sleep does.",
		Hints: ReadOnly, Profiles: []string{HttpRunner}, Progress: true,
		Short: Short{Kind: ShortNumberList, Keys: []string{"params"}, Usage: "[seconds], [min, max] or [min, max, weight, ...] (seconds)"}}).withOp(opSleepRandom())
}
