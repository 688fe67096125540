package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// SwipeCoordinateArgs are swipe_coordinate's arguments (HttpRunner seed): swipe's coordinate
// mode.
type SwipeCoordinateArgs struct {
	FromX         *float64 `json:"from_x" arg:"required,min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen width (get_screen_size)" help:"a relative coordinate between 0 and 1" desc:"Start X (0-1)"`
	FromY         *float64 `json:"from_y" arg:"required,min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen height (get_screen_size)" help:"a relative coordinate between 0 and 1" desc:"Start Y (0-1)"`
	ToX           *float64 `json:"to_x" arg:"required,min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen width (get_screen_size)" help:"a relative coordinate between 0 and 1" desc:"End X (0-1)"`
	ToY           *float64 `json:"to_y" arg:"required,min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen height (get_screen_size)" help:"a relative coordinate between 0 and 1" desc:"End Y (0-1)"`
	Duration      float64  `json:"duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds the move takes (default 0.3)"`
	PressDuration float64  `json:"press_duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds pressed before moving"`
	Behaviour
}

func (a *SwipeCoordinateArgs) swipe() SwipeArgs {
	return SwipeArgs{FromX: a.FromX, FromY: a.FromY, ToX: a.ToX, ToY: a.ToY, Duration: a.Duration, PressDuration: a.PressDuration}
}

// Check validates the arguments.
func (a *SwipeCoordinateArgs) Check() error {
	s := a.swipe()
	return s.Check()
}

// SwipeCoordinateResult is swipe_coordinate's structured result (HttpRunner seed).
type SwipeCoordinateResult struct {
	Message string  `json:"message" jsonschema:"What was done"`
	FromX   float64 `json:"fromX" jsonschema:"Start X"`
	FromY   float64 `json:"fromY" jsonschema:"Start Y"`
	ToX     float64 `json:"toX" jsonschema:"End X"`
	ToY     float64 `json:"toY" jsonschema:"End Y"`
	Hint    string  `json:"hint"`
}

func swipeCoordinate() Tool {
	return Define[SwipeCoordinateArgs, SwipeCoordinateResult](Tool{Name: "swipe_coordinate", Description: "Swipe between relative points (0-1).",
		Timeout: 30 * time.Second, MaxTimeout: 3 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Short: fromTo,
		Needs: []Ability{Need[device.Swiper]("swipe")},
	}, func(ctx context.Context, t *Task, a SwipeCoordinateArgs) (Output, error) {
		s := a.swipe()
		res, err := runSwipe(ctx, t, &s)
		if err != nil {
			return Output{}, err
		}
		return Output{Data: SwipeCoordinateResult{Message: res.Message, FromX: *a.FromX, FromY: *a.FromY, ToX: *a.ToX, ToY: *a.ToY, Hint: res.Hint}}, nil
	})
}
