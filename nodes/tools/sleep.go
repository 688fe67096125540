package tools

import (
	"context"
	"time"
)

// SleepArgs are sleep's arguments (HttpRunner seed).
type SleepArgs struct {
	Seconds *float64 `json:"seconds" arg:"required,min=0,max=3600" desc:"Seconds to wait" help:"how long to wait, up to 3600"`
	SeedOptions
}

// SleepResult is sleep's structured result (HttpRunner seed).
type SleepResult struct {
	Message string  `json:"message" jsonschema:"What was done"`
	Seconds float64 `json:"seconds" jsonschema:"Duration of the sleep in seconds"`
}

// sleep waits on the device, holding it, and reports progress.
func sleep() Tool {
	return Define[SleepArgs, SleepResult](Tool{
		Name:        "sleep",
		Description: "Wait on the device (it stays yours and busy). Reports progress; abort_task ends it.",
		Hints:       ReadOnly,
		Timeout:     sleepTimeout,
		MaxTimeout:  sleepTimeout,
		Lasts:       sleepLasts("seconds", time.Second),
		Profiles:    []string{HttpRunner},
		Progress:    true,
		Short:       Short{Kind: ShortSeconds, Keys: []string{"seconds"}, Usage: "seconds (a number)"},
	}, func(ctx context.Context, t *Task, a SleepArgs) (Output, error) {
		if err := sleepFor(ctx, seconds(*a.Seconds), t.Progress); err != nil {
			return Output{}, err
		}
		return Output{Data: SleepResult{Message: "slept " + counted(*a.Seconds, "second"), Seconds: *a.Seconds}}, nil
	})
}
