package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// SwipeDirectionArgs are swipe_direction's arguments (HttpRunner seed): swipe's direction mode.
type SwipeDirectionArgs struct {
	Direction     string  `json:"direction" arg:"required,enum=up|down|left|right" desc:"Where the finger moves" help:"where the finger moves (up, down, left or right)"`
	Duration      float64 `json:"duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds the move takes (default 0.3)"`
	PressDuration float64 `json:"press_duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds pressed before moving"`
	Behaviour
}

func (a *SwipeDirectionArgs) swipe() SwipeArgs {
	return SwipeArgs{Direction: a.Direction, Duration: a.Duration, PressDuration: a.PressDuration}
}

// Check validates the arguments as swipe's direction mode.
func (a *SwipeDirectionArgs) Check() error {
	s := a.swipe()
	if err := s.Check(); err != nil {
		return err
	}
	a.Direction = s.Direction
	return nil
}

// SwipeDirectionResult is swipe_direction's structured result (HttpRunner seed).
type SwipeDirectionResult struct {
	Message   string `json:"message" jsonschema:"What was done"`
	Direction string `json:"direction" jsonschema:"Direction swiped"`
	Hint      string `json:"hint"`
}

func swipeDirection() Tool {
	return Define[SwipeDirectionArgs, SwipeDirectionResult](Tool{Name: "swipe_direction", Description: "Swipe across the middle of the screen.",
		Timeout: 30 * time.Second, MaxTimeout: 3 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject,
		Short: Short{Kind: ShortText, Keys: []string{"direction"}, Usage: `a direction: "up", "down", "left" or "right"`},
		Needs: []Ability{Need[device.Swiper]("swipe")},
	}, func(ctx context.Context, t *Task, a SwipeDirectionArgs) (Output, error) {
		s := a.swipe()
		res, err := runSwipe(ctx, t, &s)
		if err != nil {
			return Output{}, err
		}
		return Output{Data: SwipeDirectionResult{Message: res.Message, Direction: res.Direction, Hint: res.Hint}}, nil
	})
}
