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
	X        *float64 `json:"x"`
	Y        *float64 `json:"y"`
	Duration float64  `json:"duration,omitempty"` // seconds the finger stays down
	AntiRisk bool     `json:"anti_risk,omitempty"`
}

// Check validates the arguments.
func (a *TapXYArgs) Check() error {
	if err := checkRelative("x", a.X); err != nil {
		return err
	}
	if err := checkRelative("y", a.Y); err != nil {
		return err
	}
	return checkDuration("duration", a.Duration, 60)
}

// MessageResult is the structured result of actions that only confirm (HttpRunner seed).
type MessageResult struct {
	Message string `json:"message" jsonschema:"Success message confirming the operation"`
	Hint    string `json:"hint,omitempty"`
}

func opTapXY() Op {
	return Op{Name: "tap_xy", Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a TapXYArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			p, err := relativePoint(ctx, t.Driver, *a.X, *a.Y)
			if err != nil {
				return Output{}, err
			}
			if err := t.Driver.Tap(ctx, p, seconds(a.Duration)); err != nil {
				return Output{}, err
			}
			return Output{Data: MessageResult{Message: fmt.Sprintf("tapped at (%.3f, %.3f) = pixel (%d, %d)", *a.X, *a.Y, p.X, p.Y), Hint: hintAction}}, nil
		}}
}

// checkRelative requires a relative coordinate in [0, 1]; zero is valid.
func checkRelative(name string, v *float64) error {
	if v == nil {
		return fmt.Errorf("%s is required: a relative coordinate between 0 and 1", name)
	}
	if math.IsNaN(*v) || *v < 0 || *v > 1 {
		return fmt.Errorf("%s must be between 0 and 1 (relative to the screen), got %v; use tap_abs_xy for pixels", name, *v)
	}
	return nil
}

// checkDuration requires 0 <= v <= max seconds.
func checkDuration(name string, v, max float64) error {
	if math.IsNaN(v) || v < 0 || v > max {
		return fmt.Errorf("%s must be between 0 and %g seconds, got %v", name, max, v)
	}
	return nil
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

// maxPixel bounds absolute coordinates before the screen size is known.
const maxPixel = 100000

// TapAbsXYArgs are tap_abs_xy's arguments: absolute pixel coordinates (HttpRunner seed).
type TapAbsXYArgs struct {
	X        *float64 `json:"x"`
	Y        *float64 `json:"y"`
	Duration float64  `json:"duration,omitempty"` // seconds the finger stays down
	AntiRisk bool     `json:"anti_risk,omitempty"`
}

// Check validates the arguments.
func (a *TapAbsXYArgs) Check() error {
	if err := checkPixel("x", a.X); err != nil {
		return err
	}
	if err := checkPixel("y", a.Y); err != nil {
		return err
	}
	return checkDuration("duration", a.Duration, 60)
}

func opTapAbsXY() Op {
	return Op{Name: "tap_abs_xy", Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute,
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
		}}
}

// DoubleTapXYArgs are double_tap_xy's arguments: relative coordinates 0-1, as tap_xy.
type DoubleTapXYArgs struct {
	X *float64 `json:"x"`
	Y *float64 `json:"y"`
}

// Check validates the arguments.
func (a *DoubleTapXYArgs) Check() error {
	if err := checkRelative("x", a.X); err != nil {
		return err
	}
	return checkRelative("y", a.Y)
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

// checkPixel requires an absolute coordinate in [0, maxPixel]; zero is valid.
func checkPixel(name string, v *float64) error {
	if v == nil {
		return fmt.Errorf("%s is required: an absolute pixel coordinate (0 is the left/top edge)", name)
	}
	if math.IsNaN(*v) || *v < 0 || *v > maxPixel {
		return fmt.Errorf("%s must be a pixel coordinate between 0 and %d, got %v; use tap_xy for relative 0-1 coordinates", name, maxPixel, *v)
	}
	return nil
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
