package tools

import (
	"context"
	"fmt"
	"time"
)

// TapAbsXYArgs are tap_abs_xy's arguments: absolute pixel coordinates (HttpRunner seed).
type TapAbsXYArgs struct {
	X        *float64 `json:"x" arg:"required,min=0,max=100000" desc:"X pixel coordinate" unit:"(a pixel coordinate)" help:"an absolute pixel coordinate (0 is the left/top edge)" hint:"use tap_xy for relative 0-1 coordinates"`
	Y        *float64 `json:"y" arg:"required,min=0,max=100000" desc:"Y pixel coordinate" unit:"(a pixel coordinate)" help:"an absolute pixel coordinate (0 is the left/top edge)" hint:"use tap_xy for relative 0-1 coordinates"`
	Duration float64  `json:"duration,omitempty" arg:"min=0,max=60" desc:"Seconds held down" unit:"seconds"`
	Behaviour
}

// Check refuses a coordinate between 0 and 1: no pixel lies there, and the caller meant a
// relative one (tap_xy).
func (a *TapAbsXYArgs) Check() error {
	return notFractionOfPixel("tap_abs_xy", *a.X, *a.Y, "use tap_xy for relative 0-1 coordinates")
}

// notFractionOfPixel refuses pixel coordinates x or y strictly between 0 and 1 (0.5 would
// round to pixel 0 or 1): such a number is a relative coordinate given to a tool of pixels.
func notFractionOfPixel(tool string, x, y float64, instead string) error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"x", x}, {"y", y}} {
		if c.v > 0 && c.v < 1 {
			return fmt.Errorf("%s %g is no pixel: %s takes pixel coordinates (0 is the left/top edge); %s", c.name, c.v, tool, instead)
		}
	}
	return nil
}

func tapAbsXY() Tool {
	return Define[TapAbsXYArgs, MessageResult](Tool{Name: "tap_abs_xy", Description: "Tap at absolute pixel coordinates (0,0 top-left).",
		Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject,
		Short: Short{Kind: ShortNumbers, Keys: []string{"x", "y"}, Usage: "[x, y] (pixels)"},
	}, func(ctx context.Context, t *Task, a TapAbsXYArgs) (Output, error) {
		p, err := absolutePoint(ctx, t.Driver, *a.X, *a.Y, "use tap_xy with relative coordinates")
		if err != nil {
			return Output{}, err
		}
		if err := t.tapAt(ctx, p, seconds(a.Duration)); err != nil {
			return Output{}, err
		}
		return Output{Data: MessageResult{Message: fmt.Sprintf("tapped at pixel (%d, %d)%s", p.X, p.Y, heldFor(a.Duration)), Hint: hintAction}}, nil
	})
}
