package tools

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// SleepRandomArgs are sleep_random's arguments (HttpRunner seed). params takes HttpRunner's
// forms, in seconds: [s] sleeps s; [min, max] sleeps a uniformly random time between them;
// [min1, max1, weight1, min2, max2, weight2, ...] first picks a range with probability
// proportional to its weight, then a time within it.
type SleepRandomArgs struct {
	Params []float64 `json:"params" arg:"required,minItems=1,maxItems=30,itemMin=0,itemMax=3600" desc:"Seconds: [s], [min, max], or [min, max, weight, ...] triples" help:"[seconds], [min, max] or [min1, max1, weight1, min2, max2, weight2, ...] in seconds"`
	SeedOptions
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
	Message        string    `json:"message" jsonschema:"What was done"`
	Params         []float64 `json:"params" jsonschema:"Parameters used to pick the random duration"`
	ActualDuration float64   `json:"actualDuration" jsonschema:"Duration actually slept, in seconds"`
}

// sleepRandom sleeps a time picked at random from its params, HttpRunner's way.
func sleepRandom() Tool {
	return Define[SleepRandomArgs, SleepRandomResult](Tool{
		Name:        "sleep_random",
		Description: "Wait a random time, as sleep does.",
		Hints:       ReadOnly,
		Timeout:     sleepTimeout,
		MaxTimeout:  sleepTimeout,
		Profiles:    []string{HttpRunner},
		Progress:    true,
		Short:       Short{Kind: ShortNumberList, Keys: []string{"params"}, Usage: "[seconds], [min, max] or [min, max, weight, ...] (seconds)"},
	}, func(ctx context.Context, t *Task, a SleepRandomArgs) (Output, error) {
		d := time.Duration(a.pick(rand.Float64) * float64(time.Second))
		if err := sleepFor(ctx, d, t.Progress); err != nil {
			return Output{}, err
		}
		return Output{Data: SleepRandomResult{Message: fmt.Sprintf("slept %s, picked at random from %v", d.Round(time.Millisecond), a.Params),
			Params: a.Params, ActualDuration: d.Seconds()}}, nil
	})
}
