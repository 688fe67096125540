//go:build vision

package worker

import (
	"context"
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"

	"github.com/corral-farm/corral/vision"
)

// Frames are compared at half size (each pixel the mean of four: JPEG's ringing and chroma
// bleeding at sharp edges average out). A pixel changed when one of its colour channels moved
// by more than diffLevel (of 255): less is JPEG noise and dithering. The screen Changed when more than ChangedRatio of its pixels
// did: 0.2 %, about 5000 pixels of a 1080×2400 screen, so a clock's ticking digit or a
// blinking cursor is no change while a highlighted button, a new dialog or a scrolled list is.
// Changed regions are the changed pixels joined within diffJoin pixels, largest diffMaxBoxes.
const (
	diffLevel    = 32
	ChangedRatio = 0.002
	diffJoin     = 9
	diffMaxBoxes = 50
)

// Diff tells whether a screen changed between two frames of the same size, how much and where.
func (e *Engine) Diff(ctx context.Context, req vision.DiffRequest) (vision.DiffResult, error) {
	if err := checkVersion(req.V); err != nil {
		return vision.DiffResult{}, err
	}
	before, err := decode(req.Before, "before image", gocv.IMReadColor)
	if err != nil {
		return vision.DiffResult{}, err
	}
	defer before.Close()
	after, err := decode(req.After, "after image", gocv.IMReadColor)
	if err != nil {
		return vision.DiffResult{}, err
	}
	defer after.Close()
	if before.Cols() != after.Cols() || before.Rows() != after.Rows() {
		return vision.DiffResult{}, badInput("the frames differ in size (%d×%d before, %d×%d after): compare screenshots of one device in one orientation",
			before.Cols(), before.Rows(), after.Cols(), after.Rows())
	}
	done, err := e.acquire(ctx)
	if err != nil {
		return vision.DiffResult{}, err
	}
	defer done()
	f := 1
	if before.Cols() >= 64 && before.Rows() >= 64 {
		f = 2
		for _, m := range []*gocv.Mat{&before, &after} {
			half := gocv.NewMat()
			gocv.Resize(*m, &half, image.Pt(m.Cols()/2, m.Rows()/2), 0, 0, gocv.InterpolationArea)
			m.Close()
			*m = half
		}
	}
	d := gocv.NewMat()
	defer d.Close()
	gocv.AbsDiff(before, after, &d)
	chans := gocv.Split(d)
	mask := gocv.NewMat()
	defer mask.Close()
	chans[0].CopyTo(&mask)
	for _, c := range chans[1:] {
		gocv.Max(mask, c, &mask)
	}
	for _, c := range chans {
		c.Close()
	}
	gocv.Threshold(mask, &mask, diffLevel, 255, gocv.ThresholdBinary)
	changed := gocv.CountNonZero(mask)
	ratio := float64(changed) / float64(mask.Cols()*mask.Rows())
	res := vision.DiffResult{V: vision.WireVersion, Changed: ratio > ChangedRatio, Ratio: math.Round(ratio*1e6) / 1e6}
	if changed == 0 {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return vision.DiffResult{}, err
	}
	kernel := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(diffJoin, diffJoin))
	defer kernel.Close()
	gocv.Dilate(mask, &mask, kernel)
	contours := gocv.FindContours(mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer contours.Close()
	bounds := image.Rect(0, 0, mask.Cols()*f, mask.Rows()*f)
	var boxes []image.Rectangle
	for i := range contours.Size() {
		// Dilation grew each region by half the kernel: take it back.
		r := gocv.BoundingRect(contours.At(i)).Inset(diffJoin / 2)
		boxes = append(boxes, image.Rect(r.Min.X*f, r.Min.Y*f, r.Max.X*f, r.Max.Y*f).Intersect(bounds))
	}
	slices.SortStableFunc(boxes, func(a, b image.Rectangle) int { return b.Dx()*b.Dy() - a.Dx()*a.Dy() })
	boxes = boxes[:min(len(boxes), diffMaxBoxes)]
	for _, b := range boxes {
		if !b.Empty() {
			res.Boxes = append(res.Boxes, toBox(b))
		}
	}
	sortReading(res.Boxes, func(b vision.Box) vision.Box { return b })
	return res, nil
}
