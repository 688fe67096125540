package tools

import (
	"context"
	"time"
)

// SleepMSArgs are sleep_ms' arguments (HttpRunner seed).
type SleepMSArgs struct {
	Milliseconds *int64 `json:"milliseconds" arg:"required,min=0,max=3600000" desc:"Milliseconds to wait" unit:"ms (1 h)" help:"how long to wait, up to 3600000 (1 h)"`
	SeedOptions
}

// SleepMSResult is sleep_ms' structured result (HttpRunner seed).
type SleepMSResult struct {
	Message      string `json:"message" jsonschema:"What was done"`
	Milliseconds int64  `json:"milliseconds" jsonschema:"Duration of the sleep in milliseconds"`
}

// sleepMS is sleep in milliseconds.
func sleepMS() Tool {
	return Define[SleepMSArgs, SleepMSResult](Tool{
		Name:        "sleep_ms",
		Description: "Wait a number of milliseconds on the device, as sleep does.",
		Hints:       ReadOnly,
		Timeout:     sleepTimeout,
		MaxTimeout:  sleepTimeout,
		Lasts:       sleepLasts("milliseconds", time.Millisecond),
		Profiles:    []string{HttpRunner},
		Progress:    true,
		Short:       Short{Kind: ShortWhole, Keys: []string{"milliseconds"}, Usage: "milliseconds (a whole number)"},
	}, func(ctx context.Context, t *Task, a SleepMSArgs) (Output, error) {
		ms := *a.Milliseconds
		if err := sleepFor(ctx, time.Duration(ms)*time.Millisecond, t.Progress); err != nil {
			return Output{}, err
		}
		return Output{Data: SleepMSResult{Message: "slept " + counted(float64(ms), "millisecond"), Milliseconds: ms}}, nil
	})
}
