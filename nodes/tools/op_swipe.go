package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// Swipe defaults and limits.
const (
	defaultSwipeSeconds = 0.3                    // swipe move when duration is left out
	defaultDragMS       = 1000                   // drag move when duration is left out
	dragHold            = 500 * time.Millisecond // a drag holds this long before it moves
)

// Swipe directions name where the finger moves: "up" moves it from low on the screen to high
// on it, so the content scrolls toward its bottom (as a reader's thumb does).
var swipeDirections = map[string][4]float64{
	"up":    {0.5, 0.75, 0.5, 0.25},
	"down":  {0.5, 0.25, 0.5, 0.75},
	"left":  {0.75, 0.5, 0.25, 0.5},
	"right": {0.25, 0.5, 0.75, 0.5},
}

// PhysiClaw swipes (bbox mode): the length is a size class in centimetres, converted to pixels
// through the screen density, and the speed is how long the move takes, whatever its length.
var (
	swipeSizes  = map[string]float64{"s": 1, "m": 2, "l": 4, "xl": 6, "xxl": 8}
	swipeSpeeds = map[string]time.Duration{
		"slow":   1000 * time.Millisecond, // a deliberate drag: lists scroll by about the distance moved
		"medium": 400 * time.Millisecond,  // an ordinary scroll
		"fast":   150 * time.Millisecond,  // a flick: lists keep scrolling after the finger lifts
	}
)

const (
	defaultSwipeSize  = "m"
	defaultSwipeSpeed = "medium"
	// FallbackDensity is the screen density (dpi) assumed when a driver cannot tell its own;
	// 420 is a common modern phone's.
	FallbackDensity = 420
	minDensity      = 72
	maxDensity      = 1200
)

// swipeUnits are the pixel steps of each direction.
var swipeUnits = map[string][2]int{"up": {0, -1}, "down": {0, 1}, "left": {-1, 0}, "right": {1, 0}}

// SwipeArgs are swipe's arguments, in exactly one of three modes:
//   - direction (HttpRunner seed): direction, optional duration and press_duration;
//   - coordinates (HttpRunner seed): from_x, from_y, to_x, to_y relative 0-1, optional duration
//     and press_duration;
//   - bbox (PhysiClaw seed): bbox, direction, optional size and speed.
type SwipeArgs struct {
	Direction     string    `json:"direction,omitempty" arg:"enum=up|down|left|right" desc:"Where the finger moves"`
	FromX         *float64  `json:"from_x,omitempty" arg:"min=0,max=1" unit:"(relative to the screen)" desc:"Start X (0-1)"`
	FromY         *float64  `json:"from_y,omitempty" arg:"min=0,max=1" unit:"(relative to the screen)" desc:"Start Y (0-1)"`
	ToX           *float64  `json:"to_x,omitempty" arg:"min=0,max=1" unit:"(relative to the screen)" desc:"End X (0-1)"`
	ToY           *float64  `json:"to_y,omitempty" arg:"min=0,max=1" unit:"(relative to the screen)" desc:"End Y (0-1)"`
	Duration      float64   `json:"duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds the move takes (default 0.3)"`
	PressDuration float64   `json:"press_duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds pressed before moving"`
	BBox          []float64 `json:"bbox,omitempty" arg:"minItems=4,maxItems=4,itemMin=0,itemMax=1" unit:"(relative to the screen)" desc:"[l,t,r,b] 0-1; starts at its centre"` // where the finger starts
	Size          string    `json:"size,omitempty" arg:"enum=s|m|l|xl|xxl" desc:"Distance (default m)"`
	Speed         string    `json:"speed,omitempty" arg:"enum=slow|medium|fast" desc:"Default medium"`
}

const swipeModes = "direction alone (up, down, left or right); all of from_x, from_y, to_x, to_y (relative 0-1); " +
	"or bbox [left, top, right, bottom] with direction (and optional size, speed)"

// Check validates what the tags cannot (one mode, and what each mode takes) and normalizes
// direction, size and speed to lower case.
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
	norm := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
	a.Direction, a.Size, a.Speed = norm(a.Direction), norm(a.Size), norm(a.Speed)
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
	Message        string       `json:"message" jsonschema:"Success message confirming the swipe operation"`
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

func opSwipe() Op {
	return Op{Name: "swipe", Timeout: 30 * time.Second, MaxTimeout: 3 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a SwipeArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			res, err := runSwipe(ctx, t.Driver, &a)
			if err != nil {
				return Output{}, err
			}
			return Output{Data: res}, nil
		}}
}

// runSwipe does a checked swipe in any of its modes; swipe, swipe_direction and
// swipe_coordinate all end here.
func runSwipe(ctx context.Context, drv device.Driver, a *SwipeArgs) (SwipeResult, error) {
	d, ok := drv.(device.Swiper)
	if !ok {
		return SwipeResult{}, Unsupported(drv, "swipe")
	}
	if a.BBox != nil {
		return bboxSwipe(ctx, drv, d, a)
	}
	res := SwipeResult{Direction: a.Direction, Hint: hintSwipe}
	var c [4]float64
	if a.Direction != "" {
		c = swipeDirections[a.Direction]
	} else {
		c = [4]float64{*a.FromX, *a.FromY, *a.ToX, *a.ToY}
		res.FromX, res.FromY, res.ToX, res.ToY = a.FromX, a.FromY, a.ToX, a.ToY
	}
	from, to, err := relativeLine(ctx, drv, c)
	if err != nil {
		return SwipeResult{}, err
	}
	dur := a.Duration
	if dur == 0 {
		dur = defaultSwipeSeconds
	}
	if err := d.Swipe(ctx, from, to, seconds(dur), seconds(a.PressDuration)); err != nil {
		return SwipeResult{}, err
	}
	what := "swiped " + a.Direction
	if a.Direction == "" {
		what = fmt.Sprintf("swiped from (%.3f, %.3f) to (%.3f, %.3f)", c[0], c[1], c[2], c[3])
	}
	res.Message = fmt.Sprintf("%s: pixel (%d, %d) to (%d, %d) in %gs", what, from.X, from.Y, to.X, to.Y, dur)
	res.FromPixel, res.ToPixel, res.DurationMS = from, to, seconds(dur).Milliseconds()
	return res, nil
}

// bboxSwipe is the PhysiClaw swipe: from the bbox's centre, size centimetres in direction,
// clamped to the screen, over the speed's duration.
func bboxSwipe(ctx context.Context, drv device.Driver, d device.Swiper, a *SwipeArgs) (SwipeResult, error) {
	size, speed := cmp.Or(a.Size, defaultSwipeSize), cmp.Or(a.Speed, defaultSwipeSpeed)
	s, err := drv.ScreenSize(ctx)
	if err != nil {
		return SwipeResult{}, err
	}
	dpi, densityNote, err := screenDensity(ctx, drv)
	if err != nil {
		return SwipeResult{}, err
	}
	cx, cy := bboxCentre(a.BBox)
	from := device.Point{X: scale(cx, s.Width), Y: scale(cy, s.Height)}
	cm := swipeSizes[size]
	want := int(math.Round(cm / 2.54 * float64(dpi)))
	u := swipeUnits[a.Direction]
	to := device.Point{X: max(0, min(s.Width-1, from.X+u[0]*want)), Y: max(0, min(s.Height-1, from.Y+u[1]*want))}
	moved := abs(to.X-from.X) + abs(to.Y-from.Y)
	if moved == 0 {
		return SwipeResult{}, BadInput("the bbox's centre, pixel (%d, %d), is on the screen's edge: a swipe %s from there moves nowhere; pick a bbox away from that edge",
			from.X, from.Y, a.Direction)
	}
	dur := swipeSpeeds[speed]
	if err := d.Swipe(ctx, from, to, dur, 0); err != nil {
		return SwipeResult{}, err
	}
	msg := fmt.Sprintf("swiped %s from the centre of [%.3f, %.3f, %.3f, %.3f]: pixel (%d, %d) to (%d, %d), size %s = %g cm = %d px at %d dpi, speed %s = %s",
		a.Direction, a.BBox[0], a.BBox[1], a.BBox[2], a.BBox[3], from.X, from.Y, to.X, to.Y, size, cm, want, dpi, speed, dur)
	if moved < want {
		msg += fmt.Sprintf("; shortened to %d px to stay on the screen", moved)
	}
	if densityNote != "" {
		msg += "; " + densityNote
	}
	return SwipeResult{Message: msg, Direction: a.Direction, BBox: a.BBox, Size: size, Speed: speed, DPI: dpi,
		DensityAssumed: densityNote != "", Clamped: moved < want, FromPixel: from, ToPixel: to,
		DurationMS: dur.Milliseconds(), Hint: hintSwipe}, nil
}

// screenDensity asks the driver for its density. When it cannot tell (no DensityReporter, an
// error, an implausible answer) it returns FallbackDensity and a note saying so; the error is
// only for a cancelled ctx.
func screenDensity(ctx context.Context, drv device.Driver) (dpi int, note string, err error) {
	dr, ok := drv.(device.DensityReporter)
	if !ok {
		return FallbackDensity, fmt.Sprintf("the device cannot report its screen density, %d dpi assumed", FallbackDensity), nil
	}
	dpi, err = dr.Density(ctx)
	switch {
	case ctx.Err() != nil:
		return 0, "", ctx.Err()
	case err != nil:
		return FallbackDensity, fmt.Sprintf("the screen density query failed (%v), %d dpi assumed", err, FallbackDensity), nil
	case dpi < minDensity || dpi > maxDensity:
		return FallbackDensity, fmt.Sprintf("the device reported an implausible %d dpi, %d dpi assumed", dpi, FallbackDensity), nil
	}
	return dpi, "", nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// SwipeDirectionArgs are swipe_direction's arguments (HttpRunner seed): swipe's direction mode.
type SwipeDirectionArgs struct {
	Direction     string  `json:"direction" arg:"required,enum=up|down|left|right" desc:"Where the finger moves" help:"where the finger moves (up, down, left or right)"`
	Duration      float64 `json:"duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds the move takes (default 0.3)"`
	PressDuration float64 `json:"press_duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds pressed before moving"`
}

func (a *SwipeDirectionArgs) swipe() SwipeArgs {
	return SwipeArgs{Direction: a.Direction, Duration: a.Duration, PressDuration: a.PressDuration}
}

// Check validates the arguments and normalizes the direction to lower case.
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
	Message   string `json:"message" jsonschema:"Success message confirming the direction swipe"`
	Direction string `json:"direction" jsonschema:"Direction swiped"`
	Hint      string `json:"hint"`
}

func opSwipeDirection() Op {
	return swipeModeOp("swipe_direction", func(_ *SwipeDirectionArgs, res SwipeResult) any {
		return SwipeDirectionResult{Message: res.Message, Direction: res.Direction, Hint: res.Hint}
	})
}

// swipeModeOp is the op of a tool that is one mode of swipe: it decodes the tool's own
// arguments, swipes as swipe does, and shapes the tool's own result.
func swipeModeOp[A any, P interface {
	*A
	swipe() SwipeArgs
}](name string, result func(P, SwipeResult) any) Op {
	return Op{Name: name, Timeout: 30 * time.Second, MaxTimeout: 3 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			a := P(new(A))
			if err := DecodeArgs(t.Args, a); err != nil {
				return Output{}, err
			}
			s := a.swipe()
			res, err := runSwipe(ctx, t.Driver, &s)
			if err != nil {
				return Output{}, err
			}
			return Output{Data: result(a, res)}, nil
		}}
}

// SwipeCoordinateArgs are swipe_coordinate's arguments (HttpRunner seed): swipe's coordinate
// mode.
type SwipeCoordinateArgs struct {
	FromX         *float64 `json:"from_x" arg:"required,min=0,max=1" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" desc:"Start X (0-1)"`
	FromY         *float64 `json:"from_y" arg:"required,min=0,max=1" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" desc:"Start Y (0-1)"`
	ToX           *float64 `json:"to_x" arg:"required,min=0,max=1" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" desc:"End X (0-1)"`
	ToY           *float64 `json:"to_y" arg:"required,min=0,max=1" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" desc:"End Y (0-1)"`
	Duration      float64  `json:"duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds the move takes (default 0.3)"`
	PressDuration float64  `json:"press_duration,omitempty" arg:"min=0,max=60" unit:"seconds" desc:"Seconds pressed before moving"`
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
	Message string  `json:"message" jsonschema:"Success message confirming the coordinate swipe"`
	FromX   float64 `json:"fromX" jsonschema:"Starting X"`
	FromY   float64 `json:"fromY" jsonschema:"Starting Y"`
	ToX     float64 `json:"toX" jsonschema:"Ending X"`
	ToY     float64 `json:"toY" jsonschema:"Ending Y"`
	Hint    string  `json:"hint"`
}

func opSwipeCoordinate() Op {
	return swipeModeOp("swipe_coordinate", func(a *SwipeCoordinateArgs, res SwipeResult) any {
		return SwipeCoordinateResult{Message: res.Message, FromX: *a.FromX, FromY: *a.FromY, ToX: *a.ToX, ToY: *a.ToY, Hint: res.Hint}
	})
}

// DragArgs are drag's arguments (HttpRunner seed): relative coordinates 0-1 and the duration
// of the move in milliseconds.
type DragArgs struct {
	FromX    *float64 `json:"from_x" arg:"required,min=0,max=1" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" desc:"Start X (0-1)"`
	FromY    *float64 `json:"from_y" arg:"required,min=0,max=1" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" desc:"Start Y (0-1)"`
	ToX      *float64 `json:"to_x" arg:"required,min=0,max=1" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" desc:"End X (0-1)"`
	ToY      *float64 `json:"to_y" arg:"required,min=0,max=1" unit:"(relative to the screen)" help:"a relative coordinate between 0 and 1" desc:"End Y (0-1)"`
	Duration float64  `json:"duration,omitempty" arg:"min=0,max=60000" unit:"milliseconds" desc:"Move time in ms (default 1000)"`
}

// DragResult is drag's structured result (HttpRunner seed).
type DragResult struct {
	Message string  `json:"message" jsonschema:"Success message confirming the drag operation"`
	FromX   float64 `json:"fromX" jsonschema:"Starting X"`
	FromY   float64 `json:"fromY" jsonschema:"Starting Y"`
	ToX     float64 `json:"toX" jsonschema:"Ending X"`
	ToY     float64 `json:"toY" jsonschema:"Ending Y"`
	Hint    string  `json:"hint,omitempty"`
}

func opDrag() Op {
	return Op{Name: "drag", Timeout: 30 * time.Second, MaxTimeout: 3 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a DragArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.Swiper)
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
				FromX: c[0], FromY: c[1], ToX: c[2], ToY: c[3], Hint: hintSwipe}}, nil
		}}
}

func swipeTool() Tool {
	return NewTool[SwipeArgs, SwipeResult](Tool{Description: "Swipe by (1) direction, (2) from_x..to_y (0-1), or (3) bbox + direction: from its centre, " +
		"size s/m/l/xl/xxl = 1/2/4/6/8 cm. Direction is the finger's: up scrolls down.",
		Profiles: []string{HttpRunner, PhysiClaw}, Step: StepObject,
		Short: Short{Kind: ShortSwipe, Keys: fromTo.Keys, Usage: `a direction ("up", "down", "left" or "right") or [from_x, from_y, to_x, to_y] (relative 0-1)`}}).withOp(opSwipe())
}

func drag() Tool {
	return NewTool[DragArgs, DragResult](Tool{Description: "Drag between relative points (0-1): press 0.5 s, then move.",
		Profiles: []string{HttpRunner}, Step: StepObject, Short: fromTo}).withOp(opDrag())
}

func swipeDirection() Tool {
	return NewTool[SwipeDirectionArgs, SwipeDirectionResult](Tool{Description: "Swipe across the middle of the screen.",
		Profiles: []string{HttpRunner}, Step: StepObject,
		Short: Short{Kind: ShortText, Keys: []string{"direction"}, Usage: `a direction: "up", "down", "left" or "right"`}}).withOp(opSwipeDirection())
}

func swipeCoordinate() Tool {
	return NewTool[SwipeCoordinateArgs, SwipeCoordinateResult](Tool{Description: "Swipe between relative points (0-1).",
		Profiles: []string{HttpRunner}, Step: StepObject, Short: fromTo}).withOp(opSwipeCoordinate())
}
