package nodes

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Swipe defaults and limits.
const (
	defaultSwipeSeconds = 0.3                    // swipe move when duration is left out
	defaultDragMS       = 1000                   // drag move when duration is left out
	dragHold            = 500 * time.Millisecond // a drag holds this long before it moves
	maxGestureSeconds   = 60
)

// Swipe directions name where the finger moves: "up" moves it from low on the screen to high
// on it, so the content scrolls toward its bottom (as a reader's thumb does).
var swipeDirections = map[string][4]float64{
	"up":    {0.5, 0.75, 0.5, 0.25},
	"down":  {0.5, 0.25, 0.5, 0.75},
	"left":  {0.75, 0.5, 0.25, 0.5},
	"right": {0.25, 0.5, 0.75, 0.5},
}

// SwipeArgs are swipe's arguments (HttpRunner seed): either a direction, or from_x, from_y,
// to_x, to_y in relative coordinates 0-1; never both.
type SwipeArgs struct {
	Direction     string   `json:"direction,omitempty"`
	FromX         *float64 `json:"from_x,omitempty"`
	FromY         *float64 `json:"from_y,omitempty"`
	ToX           *float64 `json:"to_x,omitempty"`
	ToY           *float64 `json:"to_y,omitempty"`
	Duration      float64  `json:"duration,omitempty"`       // seconds the move takes (0: default)
	PressDuration float64  `json:"press_duration,omitempty"` // seconds the finger holds before moving
}

// Check validates the arguments and normalizes the direction to lower case.
func (a *SwipeArgs) Check() error {
	coords := map[string]*float64{"from_x": a.FromX, "from_y": a.FromY, "to_x": a.ToX, "to_y": a.ToY}
	var given, missing []string
	for _, name := range []string{"from_x", "from_y", "to_x", "to_y"} {
		if coords[name] != nil {
			given = append(given, name)
		} else {
			missing = append(missing, name)
		}
	}
	a.Direction = strings.ToLower(strings.TrimSpace(a.Direction))
	switch {
	case a.Direction != "" && len(given) > 0:
		return fmt.Errorf("give either direction or from_x, from_y, to_x, to_y, not both (got direction and %s)", strings.Join(given, ", "))
	case a.Direction != "":
		if _, ok := swipeDirections[a.Direction]; !ok {
			return fmt.Errorf("direction must be up, down, left or right, got %q", clip(a.Direction))
		}
	case len(given) == 0:
		return errors.New("say where to swipe: direction (up, down, left or right), or all of from_x, from_y, to_x, to_y (relative 0-1)")
	case len(missing) > 0:
		return fmt.Errorf("coordinate swipe needs all of from_x, from_y, to_x, to_y; missing %s", strings.Join(missing, ", "))
	default:
		for _, name := range given {
			if err := checkRelative(name, coords[name]); err != nil {
				return err
			}
		}
	}
	if err := checkDuration("duration", a.Duration, maxGestureSeconds); err != nil {
		return err
	}
	return checkDuration("press_duration", a.PressDuration, maxGestureSeconds)
}

// SwipeResult is swipe's structured result (HttpRunner seed): the direction in direction mode,
// the coordinates in coordinate mode.
type SwipeResult struct {
	Message   string   `json:"message" jsonschema:"Success message confirming the swipe operation"`
	Direction string   `json:"direction,omitempty" jsonschema:"Swipe direction (direction mode): up, down, left or right"`
	FromX     *float64 `json:"fromX,omitempty" jsonschema:"Starting X coordinate (coordinate mode)"`
	FromY     *float64 `json:"fromY,omitempty" jsonschema:"Starting Y coordinate (coordinate mode)"`
	ToX       *float64 `json:"toX,omitempty" jsonschema:"Ending X coordinate (coordinate mode)"`
	ToY       *float64 `json:"toY,omitempty" jsonschema:"Ending Y coordinate (coordinate mode)"`
}

func opSwipe() Op {
	return Op{Name: "swipe", Timeout: 30 * time.Second, MaxTimeout: 3 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a SwipeArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(Swiper)
			if !ok {
				return Output{}, Unsupported(t.Driver, "swipe")
			}
			res := SwipeResult{Direction: a.Direction}
			var c [4]float64
			if a.Direction != "" {
				c = swipeDirections[a.Direction]
			} else {
				c = [4]float64{*a.FromX, *a.FromY, *a.ToX, *a.ToY}
				res.FromX, res.FromY, res.ToX, res.ToY = a.FromX, a.FromY, a.ToX, a.ToY
			}
			from, to, err := relativeLine(ctx, t.Driver, c)
			if err != nil {
				return Output{}, err
			}
			dur := a.Duration
			if dur == 0 {
				dur = defaultSwipeSeconds
			}
			if err := d.Swipe(ctx, from, to, seconds(dur), seconds(a.PressDuration)); err != nil {
				return Output{}, err
			}
			what := "swiped " + a.Direction
			if a.Direction == "" {
				what = fmt.Sprintf("swiped from (%.3f, %.3f) to (%.3f, %.3f)", c[0], c[1], c[2], c[3])
			}
			res.Message = fmt.Sprintf("%s: pixel (%d, %d) to (%d, %d) in %gs", what, from.X, from.Y, to.X, to.Y, dur)
			return Output{Data: res}, nil
		}}
}

// DragArgs are drag's arguments (HttpRunner seed): relative coordinates 0-1 and the duration
// of the move in milliseconds.
type DragArgs struct {
	FromX    *float64 `json:"from_x"`
	FromY    *float64 `json:"from_y"`
	ToX      *float64 `json:"to_x"`
	ToY      *float64 `json:"to_y"`
	Duration float64  `json:"duration,omitempty"` // milliseconds the move takes (0: default)
}

// Check validates the arguments.
func (a *DragArgs) Check() error {
	for _, c := range []struct {
		name string
		v    *float64
	}{{"from_x", a.FromX}, {"from_y", a.FromY}, {"to_x", a.ToX}, {"to_y", a.ToY}} {
		if err := checkRelative(c.name, c.v); err != nil {
			return err
		}
	}
	if math.IsNaN(a.Duration) || a.Duration < 0 || a.Duration > maxGestureSeconds*1000 {
		return fmt.Errorf("duration is in milliseconds and must be between 0 and %d, got %v", maxGestureSeconds*1000, a.Duration)
	}
	return nil
}

// DragResult is drag's structured result (HttpRunner seed).
type DragResult struct {
	Message string  `json:"message" jsonschema:"Success message confirming the drag operation"`
	FromX   float64 `json:"fromX" jsonschema:"Starting X coordinate of the drag"`
	FromY   float64 `json:"fromY" jsonschema:"Starting Y coordinate of the drag"`
	ToX     float64 `json:"toX" jsonschema:"Ending X coordinate of the drag"`
	ToY     float64 `json:"toY" jsonschema:"Ending Y coordinate of the drag"`
}

func opDrag() Op {
	return Op{Name: "drag", Timeout: 30 * time.Second, MaxTimeout: 3 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a DragArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(Swiper)
			if !ok {
				return Output{}, Unsupported(t.Driver, "drag")
			}
			c := [4]float64{*a.FromX, *a.FromY, *a.ToX, *a.ToY}
			from, to, err := relativeLine(ctx, t.Driver, c)
			if err != nil {
				return Output{}, err
			}
			ms := a.Duration
			if ms == 0 {
				ms = defaultDragMS
			}
			if err := d.Swipe(ctx, from, to, time.Duration(ms*float64(time.Millisecond)), dragHold); err != nil {
				return Output{}, err
			}
			return Output{Data: DragResult{
				Message: fmt.Sprintf("dragged from (%.3f, %.3f) to (%.3f, %.3f): pixel (%d, %d) to (%d, %d) in %gms after a %s hold",
					c[0], c[1], c[2], c[3], from.X, from.Y, to.X, to.Y, ms, dragHold),
				FromX: c[0], FromY: c[1], ToX: c[2], ToY: c[3]}}, nil
		}}
}

// relativeLine converts a relative from/to pair (fromX, fromY, toX, toY) to pixels with one
// screen size lookup.
func relativeLine(ctx context.Context, d Driver, c [4]float64) (from, to Point, err error) {
	s, err := d.ScreenSize(ctx)
	if err != nil {
		return Point{}, Point{}, err
	}
	return Point{X: scale(c[0], s.Width), Y: scale(c[1], s.Height)},
		Point{X: scale(c[2], s.Width), Y: scale(c[3], s.Height)}, nil
}
