package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// PhysiClaw gestures act at the centre of a bbox: a rectangle [left, top, right, bottom] in
// relative screen coordinates 0-1, as peek lists them.

// LongPressHold is how long long_press keeps the finger down (PhysiClaw: about 1.2 s).
const LongPressHold = 1200 * time.Millisecond

// checkBBox requires l < r and t < b of a bbox whose tags checked it has four numbers in [0, 1].
func checkBBox(name string, b []float64) error {
	if len(b) == 4 && (b[0] >= b[2] || b[1] >= b[3]) {
		return fmt.Errorf("%s must have left < right and top < bottom, got [%g, %g, %g, %g]", name, b[0], b[1], b[2], b[3])
	}
	return nil
}

// bboxCentre returns the relative centre of a checked bbox.
func bboxCentre(b []float64) (x, y float64) { return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2 }

// BBoxArgs are the arguments of tap, double_tap and long_press (PhysiClaw seed).
type BBoxArgs struct {
	BBox []float64 `json:"bbox" arg:"required,minItems=4,maxItems=4,itemMin=0,itemMax=1" unit:"(relative to the screen)" desc:"Where to tap: the centre of [left, top, right, bottom], relative 0-1, as peek lists them" help:"[left, top, right, bottom] relative to the screen (0-1), as peek lists them"`
}

// Check validates the arguments.
func (a *BBoxArgs) Check() error { return checkBBox("bbox", a.BBox) }

// BBoxResult is the structured result of the bbox gestures.
type BBoxResult struct {
	Message string    `json:"message" jsonschema:"What was done, where"`
	BBox    []float64 `json:"bbox" jsonschema:"The bbox acted on: [left, top, right, bottom], relative 0-1"`
	X       int       `json:"x" jsonschema:"Pixel X of the bbox centre, where the finger landed"`
	Y       int       `json:"y" jsonschema:"Pixel Y of the bbox centre, where the finger landed"`
	Hint    string    `json:"hint"`
}

// gesture returns the driver's way of doing a gesture at a point, or Unsupported.
type gesture func(d device.Driver) (func(ctx context.Context, p device.Point) error, error)

// opBBox is one gesture at the centre of a bbox.
func opBBox(name, verb, hint string, g gesture) Op {
	return Op{Name: name, Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a BBoxArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			do, err := g(t.Driver)
			if err != nil {
				return Output{}, err
			}
			cx, cy := bboxCentre(a.BBox)
			p, err := relativePoint(ctx, t.Driver, cx, cy)
			if err != nil {
				return Output{}, err
			}
			if err := do(ctx, p); err != nil {
				return Output{}, err
			}
			return Output{Data: BBoxResult{
				Message: fmt.Sprintf("%s the centre of [%.3f, %.3f, %.3f, %.3f] = pixel (%d, %d)", verb,
					a.BBox[0], a.BBox[1], a.BBox[2], a.BBox[3], p.X, p.Y),
				BBox: a.BBox, X: p.X, Y: p.Y, Hint: hint}}, nil
		}}
}

func opTap() Op { return opBBox("tap", "tapped", hintTap, tapGesture(0)) }

func opDoubleTap() Op { return opBBox("double_tap", "double-tapped", hintDoubleTap, doubleTapGesture) }

func opLongPress() Op {
	return opBBox("long_press", fmt.Sprintf("long-pressed (%s)", LongPressHold), hintLongPress, tapGesture(LongPressHold))
}

// tapGesture touches and holds for hold (0: a plain tap).
func tapGesture(hold time.Duration) gesture {
	return func(d device.Driver) (func(context.Context, device.Point) error, error) {
		return func(ctx context.Context, p device.Point) error { return d.Tap(ctx, p, hold) }, nil
	}
}

func doubleTapGesture(d device.Driver) (func(context.Context, device.Point) error, error) {
	dt, ok := d.(device.DoubleTapper)
	if !ok {
		return nil, Unsupported(d, "double-tap")
	}
	return dt.DoubleTap, nil
}

func tap() Tool {
	return NewTool[BBoxArgs, BBoxResult](Tool{Description: "Tap once at the centre of a bbox (PhysiClaw): buttons, links, list items, dismissing dialogs.",
		Profiles: []string{PhysiClaw}, Step: StepBBox, Short: bboxShort}).withOp(opTap())
}

func doubleTap() Tool {
	return NewTool[BBoxArgs, BBoxResult](Tool{Description: "Tap twice quickly at the centre of a bbox (PhysiClaw): zoom a map, photo or page, or select a word. For buttons use tap.",
		ArgDesc:  map[string]string{"bbox": "Where to double-tap: the centre of [left, top, right, bottom], relative 0-1"},
		Profiles: []string{PhysiClaw}, Step: StepBBox, Short: bboxShort}).withOp(opDoubleTap())
}

func longPress() Tool {
	return NewTool[BBoxArgs, BBoxResult](Tool{Description: "Press and hold for 1.2 s at the centre of a bbox (PhysiClaw): context menus, edit mode, the paste popup after send_to_clipboard.",
		ArgDesc:  map[string]string{"bbox": "Where to press: the centre of [left, top, right, bottom], relative 0-1"},
		Profiles: []string{PhysiClaw}, Step: StepBBox, Short: bboxShort}).withOp(opLongPress())
}
