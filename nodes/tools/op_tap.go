package tools

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// TapXYArgs are tap_xy's arguments: relative coordinates 0-1 (HttpRunner seed).
type TapXYArgs struct {
	X        *float64 `json:"x" arg:"required,min=0,max=1" desc:"X coordinate (0.0-1.0)" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" hint:"use tap_abs_xy for pixels"`
	Y        *float64 `json:"y" arg:"required,min=0,max=1" desc:"Y coordinate (0.0-1.0)" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" hint:"use tap_abs_xy for pixels"`
	Duration float64  `json:"duration,omitempty" arg:"min=0,max=60" desc:"Seconds held down" unit:"seconds"`
	AntiRisk bool     `json:"anti_risk,omitempty" desc:"Accepted; no effect"`
}

// MessageResult is the structured result of actions that only confirm (HttpRunner seed).
type MessageResult struct {
	Message string `json:"message" jsonschema:"Success message confirming the operation"`
	Hint    string `json:"hint,omitempty"`
}

func tapXY() Tool {
	return Define[TapXYArgs, MessageResult](Tool{Name: "tap_xy", Description: "Tap at relative coordinates (0-1).",
		Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Short: relativeXY,
	}, func(ctx context.Context, t *Task, a TapXYArgs) (Output, error) {
		p, err := relativePoint(ctx, t.Driver, *a.X, *a.Y)
		if err != nil {
			return Output{}, err
		}
		if err := t.Driver.Tap(ctx, p, seconds(a.Duration)); err != nil {
			return Output{}, err
		}
		return Output{Data: MessageResult{Message: fmt.Sprintf("tapped at (%.3f, %.3f) = pixel (%d, %d)", *a.X, *a.Y, p.X, p.Y), Hint: hintAction}}, nil
	})
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// relativePoint converts relative coordinates to pixels of the driver's screen.
func relativePoint(ctx context.Context, d device.Driver, x, y float64) (device.Point, error) {
	s, err := d.ScreenSize(ctx)
	if err != nil {
		return device.Point{}, err
	}
	return device.Point{X: scale(x, s.Width), Y: scale(y, s.Height)}, nil
}

// scale maps a relative coordinate in [0,1] to a pixel in [0, n-1].
func scale(v float64, n int) int {
	p := int(math.Round(v * float64(n-1)))
	return max(0, min(n-1, p))
}

// TapAbsXYArgs are tap_abs_xy's arguments: absolute pixel coordinates (HttpRunner seed).
type TapAbsXYArgs struct {
	X        *float64 `json:"x" arg:"required,min=0,max=100000" desc:"X pixel coordinate" unit:"(a pixel coordinate)" help:"an absolute pixel coordinate (0 is the left/top edge)" hint:"use tap_xy for relative 0-1 coordinates"`
	Y        *float64 `json:"y" arg:"required,min=0,max=100000" desc:"Y pixel coordinate" unit:"(a pixel coordinate)" help:"an absolute pixel coordinate (0 is the left/top edge)" hint:"use tap_xy for relative 0-1 coordinates"`
	Duration float64  `json:"duration,omitempty" arg:"min=0,max=60" desc:"Seconds held down" unit:"seconds"`
	AntiRisk bool     `json:"anti_risk,omitempty" desc:"Accepted; no effect"`
}

func tapAbsXY() Tool {
	return NewTool[TapAbsXYArgs, MessageResult](Tool{Name: "tap_abs_xy", Description: "Tap at absolute pixel coordinates (0,0 top-left).",
		Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject,
		Short: Short{Kind: ShortNumbers, Keys: []string{"x", "y"}, Usage: "[x, y] (pixels)"},
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a TapAbsXYArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			p, err := absolutePoint(ctx, t.Driver, *a.X, *a.Y)
			if err != nil {
				return Output{}, err
			}
			if err := t.Driver.Tap(ctx, p, seconds(a.Duration)); err != nil {
				return Output{}, err
			}
			return Output{Data: MessageResult{Message: fmt.Sprintf("tapped at pixel (%d, %d)", p.X, p.Y), Hint: hintAction}}, nil
		}})
}

// DoubleTapXYArgs are double_tap_xy's arguments: relative coordinates 0-1, as tap_xy.
type DoubleTapXYArgs struct {
	X *float64 `json:"x" arg:"required,min=0,max=1" desc:"X coordinate (0.0-1.0)" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" hint:"use tap_abs_xy for pixels"`
	Y *float64 `json:"y" arg:"required,min=0,max=1" desc:"Y coordinate (0.0-1.0)" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" hint:"use tap_abs_xy for pixels"`
}

func opDoubleTapXY() Op {
	return Op{Name: "double_tap_xy", Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a DoubleTapXYArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.DoubleTapper)
			if !ok {
				return Output{}, Unsupported(t.Driver, "double-tap")
			}
			p, err := relativePoint(ctx, t.Driver, *a.X, *a.Y)
			if err != nil {
				return Output{}, err
			}
			if err := d.DoubleTap(ctx, p); err != nil {
				return Output{}, err
			}
			return Output{Data: MessageResult{Message: fmt.Sprintf("double-tapped at (%.3f, %.3f) = pixel (%d, %d)", *a.X, *a.Y, p.X, p.Y), Hint: hintAction}}, nil
		}}
}

// absolutePoint rounds pixel coordinates and checks that they lie on the driver's screen.
func absolutePoint(ctx context.Context, d device.Driver, x, y float64) (device.Point, error) {
	s, err := d.ScreenSize(ctx)
	if err != nil {
		return device.Point{}, err
	}
	p := device.Point{X: int(math.Round(x)), Y: int(math.Round(y))}
	if p.X >= s.Width || p.Y >= s.Height {
		return device.Point{}, BadInput("pixel (%d, %d) is outside the %dx%d screen (x must be below %d, y below %d); call get_screen_size, or use tap_xy with relative coordinates",
			p.X, p.Y, s.Width, s.Height, s.Width, s.Height)
	}
	return p, nil
}

func doubleTapXY() Tool {
	return NewTool[DoubleTapXYArgs, MessageResult](Tool{Description: "Double-tap at relative coordinates (0-1).",
		Profiles: []string{HttpRunner}, Step: StepObject, Short: relativeXY}).withOp(opDoubleTapXY())
}
