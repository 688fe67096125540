package calib

import (
	"context"
	"errors"
	"image"
	"image/color"
	"sync/atomic"
	"testing"

	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/internal/lens"
)

// endsAfter is a context that is not done for its first n looks at Err, and cancelled from
// then on: a deadline that passes at a known point of the work, whatever the machine's speed.
type endsAfter struct {
	context.Context
	looks atomic.Int64
	n     int64
}

func (c *endsAfter) Err() error {
	if c.looks.Add(1) > c.n {
		return context.Canceled
	}
	return nil
}

// A rig's screenshot stops rectifying once its ctx is done, part way through the frame, rather
// than warp the whole screen first: a second of work under -race on a loaded machine, past the
// grace its driver has to return.
func TestRectifyStopsPartWayWhenItsContextEnds(t *testing.T) {
	page := Page(1080, 2400)
	cond := lens.Mild(3, 1080, 2400).Only(lens.EffectPerspective)
	frame, err := lens.Render(page, cond)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &endsAfter{Context: context.Background(), n: 3}
	if shot, err := RectifyContext(ctx, frame, cond.Quad, 1080, 2400); !errors.Is(err, context.Canceled) {
		t.Fatalf("a rectification whose ctx ended part way: %v, %v; want context.Canceled", shot != nil, err)
	}
	if bands := (2400 + rectifyBand/1080 - 1) / (rectifyBand / 1080); ctx.looks.Load() >= int64(bands) {
		t.Errorf("looked at ctx %d times for %d bands: it did not stop part way", ctx.looks.Load(), bands)
	}
}

// Band by band, the screenshot is the one warp of the whole screen (to a rounding of the
// bilinear weights), from any kind of frame.
func TestRectifyInBandsIsOneWarp(t *testing.T) {
	page := Page(540, 1200)
	cond := lens.Mild(5, 540, 1200).Only(lens.EffectPerspective)
	frame, err := lens.Render(page, cond)
	if err != nil {
		t.Fatal(err)
	}
	fw, fh := 540.0, 1200.0
	toFrame, err := geom.FindHomography([]geom.Point{{X: 0, Y: 0}, {X: fw, Y: 0}, {X: fw, Y: fh}, {X: 0, Y: fh}}, cond.Quad[:])
	if err != nil {
		t.Fatal(err)
	}
	want := geom.WarpFill(frame, toFrame, 540, 1200, color.RGBA{A: 255})
	// A frame from a real camera is YCbCr: converted once, it gives the same screenshot.
	ycc := image.NewYCbCr(frame.Rect, image.YCbCrSubsampleRatio444)
	for y := 0; y < frame.Rect.Dy(); y++ {
		for x := 0; x < frame.Rect.Dx(); x++ {
			c := frame.RGBAAt(x, y)
			yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
			ycc.Y[ycc.YOffset(x, y)], ycc.Cb[ycc.COffset(x, y)], ycc.Cr[ycc.COffset(x, y)] = yy, cb, cr
		}
	}
	for name, src := range map[string]image.Image{"RGBA": frame, "YCbCr": ycc} {
		got, err := RectifyContext(context.Background(), src, cond.Quad, 540, 1200)
		if err != nil {
			t.Fatal(err)
		}
		ref := want
		if name == "YCbCr" {
			ref = geom.WarpFill(ycc, toFrame, 540, 1200, color.RGBA{A: 255})
		}
		if d := maxDiff(got, ref); d > 1 {
			t.Errorf("%s: the banded screenshot differs from one warp by up to %d levels", name, d)
		}
	}
	// A quad folded over the horizon still gives a screenshot of the size asked.
	folded := [4]geom.Point{{X: 0, Y: 0}, {X: 500, Y: 0}, {X: 0, Y: 500}, {X: 500, Y: 500}}
	if h, err := geom.FindHomography([]geom.Point{{X: 0, Y: 0}, {X: 50, Y: 0}, {X: 50, Y: 50}, {X: 0, Y: 50}}, folded[:]); err != nil || inFront(h, 50, 50) {
		t.Fatalf("the folded quad (%v) is not folded", err)
	}
	if r := Rectify(frame, folded, 50, 50); r.Bounds().Dx() != 50 || r.Bounds().Dy() != 50 {
		t.Errorf("a folded quad gives %v", r.Bounds())
	}
}

func maxDiff(a, b *image.RGBA) int {
	if a.Rect != b.Rect {
		return 256
	}
	worst := 0
	for i := range a.Pix {
		worst = max(worst, abs(int(a.Pix[i])-int(b.Pix[i])))
	}
	return worst
}

func abs(v int) int { return max(v, -v) }
