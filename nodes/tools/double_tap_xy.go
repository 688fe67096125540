package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// DoubleTapXYArgs are double_tap_xy's arguments: relative coordinates 0-1, as tap_xy.
type DoubleTapXYArgs struct {
	X *float64 `json:"x" arg:"required,min=0,max=1" desc:"X coordinate (0.0-1.0)" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" hint:"use tap_abs_xy for pixels"`
	Y *float64 `json:"y" arg:"required,min=0,max=1" desc:"Y coordinate (0.0-1.0)" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" hint:"use tap_abs_xy for pixels"`
	Behaviour
}

func doubleTapXY() Tool {
	return Define[DoubleTapXYArgs, MessageResult](Tool{Name: "double_tap_xy", Description: "Double-tap at relative coordinates (0-1).",
		Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Short: relativeXY,
		Needs: []Ability{Need[device.DoubleTapper]("double-tap")},
	}, func(ctx context.Context, t *Task, a DoubleTapXYArgs) (Output, error) {
		p, err := relativePoint(ctx, t.Driver, *a.X, *a.Y)
		if err != nil {
			return Output{}, err
		}
		if err := t.doubleTapAt(ctx, p); err != nil {
			return Output{}, err
		}
		return Output{Data: MessageResult{Message: fmt.Sprintf("double-tapped at (%.3f, %.3f) = pixel (%d, %d)", *a.X, *a.Y, p.X, p.Y), Hint: hintAction}}, nil
	})
}
