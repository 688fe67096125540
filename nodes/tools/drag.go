package tools

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// Drag defaults.
const (
	defaultDragMS = 1000            // drag move when duration is left out
	dragHold      = device.DragHold // a drag holds this long before it moves (a long press)
)

// DragArgs are drag's arguments (HttpRunner seed): relative coordinates 0-1 and the duration
// of the move in milliseconds.
type DragArgs struct {
	FromX    *float64 `json:"from_x" arg:"required,min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen width (get_screen_size)" help:"a relative coordinate between 0 and 1" desc:"Start X (0-1)"`
	FromY    *float64 `json:"from_y" arg:"required,min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen height (get_screen_size)" help:"a relative coordinate between 0 and 1" desc:"Start Y (0-1)"`
	ToX      *float64 `json:"to_x" arg:"required,min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen width (get_screen_size)" help:"a relative coordinate between 0 and 1" desc:"End X (0-1)"`
	ToY      *float64 `json:"to_y" arg:"required,min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen height (get_screen_size)" help:"a relative coordinate between 0 and 1" desc:"End Y (0-1)"`
	Duration float64  `json:"duration,omitempty" arg:"min=0,max=60000" unit:"milliseconds" desc:"Move time in ms (default 1000)"`
	Behaviour
}

// MinDragMS is the shortest drag move taken: under it no finger moves, and a duration that
// short is almost surely seconds given for milliseconds (every other duration is seconds).
// MaxDragMS is duration's max (its arg tag), for callers that convert from seconds.
const (
	MinDragMS = 10
	MaxDragMS = 60000
)

// Check refuses a move under MinDragMS, with the milliseconds the caller likely meant.
func (a *DragArgs) Check() error {
	if a.Duration > 0 && a.Duration < MinDragMS {
		return fmt.Errorf("duration is in milliseconds (drag alone, as HttpRunner's seed has it); %s looks like seconds: give %s "+
			"(a drag under %d ms is too fast to be one)", FormatNumber(a.Duration), FormatNumber(math.Round(a.Duration*1e6)/1e3), MinDragMS)
	}
	return nil
}

// DragResult is drag's structured result (HttpRunner seed).
type DragResult struct {
	Message string  `json:"message" jsonschema:"What was done"`
	FromX   float64 `json:"fromX" jsonschema:"Start X"`
	FromY   float64 `json:"fromY" jsonschema:"Start Y"`
	ToX     float64 `json:"toX" jsonschema:"End X"`
	ToY     float64 `json:"toY" jsonschema:"End Y"`
	// DurationMS is how long the move took: the duration asked, or longer on a device with a
	// top speed (an arm's finger), as swipe's durationMs.
	DurationMS int64  `json:"durationMs" jsonschema:"Move time (ms)"`
	Hint       string `json:"hint,omitempty"`
}

func drag() Tool {
	return Define[DragArgs, DragResult](Tool{Name: "drag", Description: "Drag between relative points (0-1): press 0.6 s, then move.",
		Timeout: 30 * time.Second, MaxTimeout: 3 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Short: fromTo,
		Needs: []Ability{Need[device.Swiper]("drag")},
	}, func(ctx context.Context, t *Task, a DragArgs) (Output, error) {
		c := [4]float64{*a.FromX, *a.FromY, *a.ToX, *a.ToY}
		from, to, err := relativeLine(ctx, t.Driver, c)
		if err != nil {
			return Output{}, err
		}
		ms := a.Duration
		if ms == 0 {
			ms = defaultDragMS
		}
		asked := time.Duration(ms * float64(time.Millisecond))
		if err := t.swipeFrom(ctx, from, to, asked, dragHold); err != nil {
			return Output{}, err
		}
		took := t.swipeTook(from, to, asked)
		return Output{Data: DragResult{Message: dragMessage(c, from, to, ms, took),
			FromX: c[0], FromY: c[1], ToX: c[2], ToY: c[3], DurationMS: took.Milliseconds(), Hint: hintSwipe}}, nil
	})
}

// dragMessage says what drag did: the move asked ms, which took took (longer at an arm's top
// speed, as swipe says it), after the hold, the tool's own (not the caller's), which the
// Android driver holds too (device.DragHold).
func dragMessage(c [4]float64, from, to device.Point, ms float64, took time.Duration) string {
	move := fmt.Sprintf("in %gms", ms)
	if asked := time.Duration(ms * float64(time.Millisecond)); took > asked {
		move += fmt.Sprintf(" asked; took %s at the device's top speed", took)
	}
	return fmt.Sprintf("dragged from (%.3f, %.3f) to (%.3f, %.3f): pixel (%d, %d) to (%d, %d) %s, after holding the start "+
		"for a long press (%s)", c[0], c[1], c[2], c[3], from.X, from.Y, to.X, to.Y, move, dragHold)
}
