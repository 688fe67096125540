package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// Swipe defaults: the move when duration is left out.
const defaultSwipeSeconds = 0.3

// Swipe directions name where the finger moves: "up" moves it from low on the screen to high
// on it, so the content scrolls toward its bottom (as a reader's thumb does).
var swipeDirections = map[string][4]float64{
	"up":    {0.5, 0.75, 0.5, 0.25},
	"down":  {0.5, 0.25, 0.5, 0.75},
	"left":  {0.75, 0.5, 0.25, 0.5},
	"right": {0.25, 0.5, 0.75, 0.5},
}

// SwipeArgs are swipe's arguments, in exactly one of three modes:
//   - direction (HttpRunner seed): direction, optional duration and press_duration;
//   - coordinates (HttpRunner seed): from_x, from_y, to_x, to_y relative 0-1, optional duration
//     and press_duration;
//   - bbox (PhysiClaw seed): bbox, direction, optional size and speed.
type SwipeArgs struct {
	Direction     string    `json:"direction,omitempty" arg:"enum=up|down|left|right" desc:"Where the finger moves"`
	FromX         *float64  `json:"from_x,omitempty" arg:"min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen width (get_screen_size)" desc:"Start X (0-1)"`
	FromY         *float64  `json:"from_y,omitempty" arg:"min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen height (get_screen_size)" desc:"Start Y (0-1)"`
	ToX           *float64  `json:"to_x,omitempty" arg:"min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen width (get_screen_size)" desc:"End X (0-1)"`
	ToY           *float64  `json:"to_y,omitempty" arg:"min=0,max=1" unit:"(relative to the screen)" hint:"for pixels, divide by the screen height (get_screen_size)" desc:"End Y (0-1)"`
	Duration      float64   `json:"duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds the move takes (default 0.3)"`
	PressDuration float64   `json:"press_duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds pressed before moving"`
	BBox          []float64 `json:"bbox,omitempty" arg:"minItems=4,maxItems=4,itemMin=0,itemMax=1" unit:"(relative to the screen)" desc:"[l,t,r,b] 0-1; starts at its centre"` // where the finger starts
	Size          string    `json:"size,omitempty" arg:"enum=s|m|l|xl|xxl" desc:"Distance (default m)"`
	Speed         string    `json:"speed,omitempty" arg:"enum=slow|medium|fast" desc:"Default medium"`
	Behaviour
}

const swipeModes = "direction alone (up, down, left or right); all of from_x, from_y, to_x, to_y (relative 0-1); " +
	"or bbox [left, top, right, bottom] with direction (and optional size, speed)"

// Check validates what the tags cannot (one mode, and what each mode takes).
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
	// Their tags' check put direction, size and speed in their enums' spelling (up, not " UP ":
	// enum_values.go, the rule mcp/steps checks by too); a blank one is none.
	trim := strings.TrimSpace
	a.Direction, a.Size, a.Speed = trim(a.Direction), trim(a.Size), trim(a.Speed)
	switch {
	case a.BBox != nil && len(given) > 0:
		return fmt.Errorf("swipe takes exactly one mode: %s; got bbox and %s", swipeModes, strings.Join(given, ", "))
	case a.BBox != nil:
		return a.checkBBoxMode()
	case a.Size != "" || a.Speed != "":
		return errors.New("size and speed belong to the bbox mode: add bbox [left, top, right, bottom] (relative 0-1) and direction, or leave them out")
	case a.Direction != "" && len(given) > 0:
		return fmt.Errorf("give either direction or from_x, from_y, to_x, to_y, not both (got direction and %s); swipe takes exactly one mode: %s",
			strings.Join(given, ", "), swipeModes)
	case a.Direction != "": // its value, as every argument's limits, is checked by its tags
	case len(given) == 0:
		return errors.New("say where to swipe, in one of three modes: " + swipeModes)
	case len(missing) > 0:
		return fmt.Errorf("coordinate swipe needs all of from_x, from_y, to_x, to_y; missing %s", strings.Join(missing, ", "))
	}
	return nil
}

func (a *SwipeArgs) checkBBoxMode() error {
	if err := checkBBox("bbox", a.BBox); err != nil {
		return err
	}
	if a.Direction == "" {
		return errors.New("a bbox swipe needs direction: where the finger moves from the bbox's centre (up, down, left or right)")
	}
	if a.Duration != 0 || a.PressDuration != 0 {
		return errors.New("a bbox swipe takes speed (slow, medium or fast), not duration or press_duration")
	}
	return nil
}

// SwipeResult is swipe's structured result (HttpRunner seed, plus the PhysiClaw bbox mode): the
// direction in direction mode, the coordinates in coordinate mode, the bbox, size and speed in
// bbox mode; the pixels in every mode.
type SwipeResult struct {
	Message        string       `json:"message" jsonschema:"What was done"`
	Direction      string       `json:"direction,omitempty" jsonschema:"Swipe direction"`
	FromX          *float64     `json:"fromX,omitempty" jsonschema:"Start X"`
	FromY          *float64     `json:"fromY,omitempty" jsonschema:"Start Y"`
	ToX            *float64     `json:"toX,omitempty" jsonschema:"End X"`
	ToY            *float64     `json:"toY,omitempty" jsonschema:"End Y"`
	BBox           []float64    `json:"bbox,omitempty"`
	Size           string       `json:"size,omitempty"`
	Speed          string       `json:"speed,omitempty"`
	DPI            int          `json:"dpi,omitempty" jsonschema:"Density used for cm"`
	DensityAssumed bool         `json:"densityAssumed,omitempty" jsonschema:"420 dpi assumed"`
	Clamped        bool         `json:"clamped,omitempty" jsonschema:"Shortened to stay on screen"`
	FromPixel      device.Point `json:"fromPixel"`
	ToPixel        device.Point `json:"toPixel"`
	DurationMS     int64        `json:"durationMs" jsonschema:"Move time (ms)"`
	Hint           string       `json:"hint"`
}

func swipeTool() Tool {
	return Define[SwipeArgs, SwipeResult](Tool{Name: "swipe", Description: "Swipe by (1) direction, (2) from_x..to_y (0-1), or (3) bbox + direction: from its centre, " +
		"size s/m/l/xl/xxl = 1/2/4/6/8 cm. Direction is the finger's: up scrolls down.",
		Timeout: 30 * time.Second, MaxTimeout: 3 * time.Minute, Profiles: []string{HttpRunner, PhysiClaw}, Step: StepObject,
		Short: Short{Kind: ShortSwipe, Keys: fromTo.Keys, Usage: `a direction ("up", "down", "left" or "right") or [from_x, from_y, to_x, to_y] (relative 0-1)`},
		Needs: []Ability{Need[device.Swiper]("swipe")},
		Uses:  []Ability{Need[device.DensityReporter]("tell its screen density")}, // bbox mode: cm to pixels, else 420 dpi assumed
	}, func(ctx context.Context, t *Task, a SwipeArgs) (Output, error) {
		res, err := runSwipe(ctx, t, &a)
		if err != nil {
			return Output{}, err
		}
		return Output{Data: res}, nil
	})
}

// runSwipe does a checked swipe in any of its modes on the task's driver, a device.Swiper (the
// tools calling it need one); swipe, swipe_direction and swipe_coordinate all end here.
func runSwipe(ctx context.Context, t *Task, a *SwipeArgs) (SwipeResult, error) {
	if a.BBox != nil {
		return bboxSwipe(ctx, t, a)
	}
	res := SwipeResult{Direction: a.Direction, Hint: hintSwipe}
	var c [4]float64
	if a.Direction != "" {
		c = swipeDirections[a.Direction]
	} else {
		c = [4]float64{*a.FromX, *a.FromY, *a.ToX, *a.ToY}
		res.FromX, res.FromY, res.ToX, res.ToY = a.FromX, a.FromY, a.ToX, a.ToY
	}
	from, to, err := relativeLine(ctx, t.Driver, c)
	if err != nil {
		return SwipeResult{}, err
	}
	dur := a.Duration
	if dur == 0 {
		dur = defaultSwipeSeconds
	}
	if err := t.swipeFrom(ctx, from, to, seconds(dur), seconds(a.PressDuration)); err != nil {
		return SwipeResult{}, err
	}
	what := "swiped " + a.Direction
	if a.Direction == "" {
		what = fmt.Sprintf("swiped from (%.3f, %.3f) to (%.3f, %.3f)", c[0], c[1], c[2], c[3])
	}
	res.Message = fmt.Sprintf("%s: pixel (%d, %d) to (%d, %d) in %gs", what, from.X, from.Y, to.X, to.Y, dur)
	took := t.swipeTook(from, to, seconds(dur))
	if took > seconds(dur) {
		res.Message += fmt.Sprintf(" asked; took %s at the device's top speed", took)
	}
	res.FromPixel, res.ToPixel, res.DurationMS = from, to, took.Milliseconds()
	return res, nil
}
