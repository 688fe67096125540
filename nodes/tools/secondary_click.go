package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// SecondaryClickArgs are secondary_click's arguments (HttpRunner seed): a point, relative
// (both 0-1) or in pixels.
type SecondaryClickArgs struct {
	X *float64 `json:"x" arg:"required,min=0" desc:"X coordinate: 0-1 relative to the screen, or pixels" help:"a relative coordinate (0-1) or a pixel"`
	Y *float64 `json:"y" arg:"required,min=0" desc:"Y coordinate: 0-1 relative to the screen, or pixels" help:"a relative coordinate (0-1) or a pixel"`
	Behaviour
}

// SecondaryClickResult is secondary_click's structured result (HttpRunner seed).
type SecondaryClickResult struct {
	Message string  `json:"message" jsonschema:"What was done"`
	X       float64 `json:"x" jsonschema:"X coordinate clicked, as given"`
	Y       float64 `json:"y" jsonschema:"Y coordinate clicked, as given"`
	Hint    string  `json:"hint,omitempty"`
}

// Check refuses a point half relative and half in pixels ({x: 0.5, y: 300}): x would be pixel 0
// or 1.
func (a *SecondaryClickArgs) Check() error {
	if *a.X <= 1 && *a.Y <= 1 {
		return nil
	}
	return notFractionOfPixel("secondary_click", *a.X, *a.Y, "give both x and y relative (0-1), or both in pixels")
}

func secondaryClick() Tool {
	return Define[SecondaryClickArgs, SecondaryClickResult](Tool{Name: "secondary_click",
		Description: "Right-click at a point (a web page's context menu): x and y relative 0-1 when both are at most 1, else pixels.",
		Timeout:     10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{HttpRunner}, Step: StepObject,
		Short: Short{Kind: ShortNumbers, Keys: []string{"x", "y"}, Usage: "[x, y] (relative 0-1, or pixels)"},
		Needs: []Ability{Need[device.SecondaryClicker]("right-click")},
	}, func(ctx context.Context, t *Task, a SecondaryClickArgs) (Output, error) {
		var p device.Point
		var err error
		if *a.X <= 1 && *a.Y <= 1 {
			p, err = relativePoint(ctx, t.Driver, *a.X, *a.Y)
		} else {
			p, err = absolutePoint(ctx, t.Driver, *a.X, *a.Y, "give both x and y relative (0-1)")
		}
		if err != nil {
			return Output{}, err
		}
		if err := t.secondaryClickAt(ctx, p); err != nil {
			return Output{}, err
		}
		return Output{Data: SecondaryClickResult{Message: fmt.Sprintf("right-clicked at (%g, %g) = pixel (%d, %d)", *a.X, *a.Y, p.X, p.Y),
			X: *a.X, Y: *a.Y, Hint: hintAction}}, nil
	})
}
