package tools

import (
	"context"
	"fmt"

	"github.com/corral-farm/corral/nodes/device"
)

// PhysiClaw gestures act at the centre of a bbox: a rectangle [left, top, right, bottom] in
// relative screen coordinates 0-1, as peek lists them.

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
	Behaviour
}

// Check validates the arguments.
func (a *BBoxArgs) Check() error { return checkBBox("bbox", a.BBox) }

// BBoxResult is the structured result of the bbox gestures.
type BBoxResult struct {
	Message string    `json:"message" jsonschema:"What was done, where"`
	BBox    []float64 `json:"bbox" jsonschema:"The bbox acted on: [l,t,r,b], relative 0-1"`
	X       int       `json:"x" jsonschema:"Pixel X touched: the bbox centre"`
	Y       int       `json:"y" jsonschema:"Pixel Y touched: the bbox centre"`
	Hint    string    `json:"hint"`
}

// atBBoxCentre is the run of a bbox gesture: do at the centre of the bbox, then say what was
// done (verb) and what to do next (hint).
func atBBoxCentre(verb, hint string, do func(ctx context.Context, t *Task, p device.Point) error) func(context.Context, *Task, BBoxArgs) (Output, error) {
	return func(ctx context.Context, t *Task, a BBoxArgs) (Output, error) {
		cx, cy := bboxCentre(a.BBox)
		p, err := relativePoint(ctx, t.Driver, cx, cy)
		if err != nil {
			return Output{}, err
		}
		if err := t.aimAtBBox(ctx, a.BBox); err != nil {
			return Output{}, err
		}
		if err := do(ctx, t, p); err != nil {
			return Output{}, err
		}
		return Output{Data: BBoxResult{
			Message: fmt.Sprintf("%s the centre of [%.3f, %.3f, %.3f, %.3f] = pixel (%d, %d)", verb,
				a.BBox[0], a.BBox[1], a.BBox[2], a.BBox[3], p.X, p.Y),
			BBox: a.BBox, X: p.X, Y: p.Y, Hint: hint}}, nil
	}
}
