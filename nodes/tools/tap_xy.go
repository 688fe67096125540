package tools

import (
	"context"
	"fmt"
	"time"
)

// TapXYArgs are tap_xy's arguments: relative coordinates 0-1 (HttpRunner seed).
type TapXYArgs struct {
	X        *float64 `json:"x" arg:"required,min=0,max=1" desc:"X coordinate (0.0-1.0)" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" hint:"use tap_abs_xy for pixels"`
	Y        *float64 `json:"y" arg:"required,min=0,max=1" desc:"Y coordinate (0.0-1.0)" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" hint:"use tap_abs_xy for pixels"`
	Duration float64  `json:"duration,omitempty" arg:"min=0,max=60" desc:"Seconds held down" unit:"seconds"`
	Behaviour
}

func tapXY() Tool {
	return Define[TapXYArgs, MessageResult](Tool{Name: "tap_xy", Description: "Tap at relative coordinates (0-1).",
		Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Short: relativeXY,
	}, func(ctx context.Context, t *Task, a TapXYArgs) (Output, error) {
		p, err := relativePoint(ctx, t.Driver, *a.X, *a.Y)
		if err != nil {
			return Output{}, err
		}
		if err := t.tapAt(ctx, p, seconds(a.Duration)); err != nil {
			return Output{}, err
		}
		return Output{Data: MessageResult{Message: fmt.Sprintf("tapped at (%.3f, %.3f) = pixel (%d, %d)%s", *a.X, *a.Y, p.X, p.Y, heldFor(a.Duration)), Hint: hintAction}}, nil
	})
}

// heldFor is what a tap's message adds for the duration asked in seconds, so that a long
// press does not read as a plain tap: nothing for a plain tap.
func heldFor(secs float64) string {
	if secs <= 0 {
		return ""
	}
	return ", held down " + seconds(secs).String()
}
