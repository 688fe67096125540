package lens

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"

	"github.com/corral-farm/corral/internal/geom"
)

// lookRows is how many rows a stage of the render works through between two looks at its
// ctx: a fraction of a millisecond of work, and a look costs nothing beside it.
const lookRows = 64

// bandPixels is about how many pixels the warp and the JPEG round trip work through between
// two looks at ctx (as calib.RectifyContext's bands): a few milliseconds.
const bandPixels = 1 << 17

// stopped is ctx's cause once ctx is done, else nil: a render that stops with its task says
// why (its deadline, an abort), not only "context canceled".
func stopped(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("lens: %w", context.Cause(ctx))
}

// ended says, once every lookRows rows from y0, whether ctx is done: a stage's band of rows
// stops there, and RenderContext answers stopped after the stage.
func ended(ctx context.Context, y0, y int) bool {
	return (y-y0)%lookRows == 0 && ctx.Err() != nil
}

// warpBands is geom.WarpFill(src, toSrc, w, h, bg) a band of rows at a time, stopping between
// bands once ctx is done. The bands' pixels are the one warp's, to a rounding of the bilinear
// weights (a band's rows are counted from its top).
func warpBands(ctx context.Context, src image.Image, toSrc geom.Homography, w, h int, bg color.RGBA) (*image.RGBA, error) {
	if !inFront(toSrc, float64(w), float64(h)) {
		// The frame crosses the screen plane's horizon: WarpFill tells its sides apart by the
		// centre of the whole frame, which a band would not see.
		return geom.WarpFill(src, toSrc, w, h, bg), stopped(ctx)
	}
	switch s := src.(type) { // converted once, not once a band (as geom's rgbaView would)
	case *image.RGBA:
	case *image.NRGBA:
		if !s.Opaque() {
			src = rgba(src)
		}
	default:
		src = rgba(src)
	}
	dst := image.NewRGBA(image.Rect(0, 0, max(w, 0), max(h, 0)))
	rows := max(1, bandPixels/max(w, 1))
	for y0 := 0; y0 < h; y0 += rows {
		if err := stopped(ctx); err != nil {
			return nil, err
		}
		band := dst.SubImage(image.Rect(0, y0, w, min(y0+rows, h))).(*image.RGBA)
		geom.WarpInto(band, src, toSrc.Mul(geom.Homography{1, 0, 0, 0, 1, float64(y0), 0, 0, 1}), bg)
	}
	return dst, nil
}

// inFront says whether the whole w×h image maps through toSrc to one side of its horizon:
// the homogeneous w is affine, so one sign at the four corners is one sign everywhere.
func inFront(toSrc geom.Homography, w, h float64) bool {
	var pos, neg int
	for _, p := range [4][2]float64{{0, 0}, {w, 0}, {w, h}, {0, h}} {
		switch W := toSrc[6]*p[0] + toSrc[7]*p[1] + toSrc[8]; {
		case W > 0:
			pos++
		case W < 0:
			neg++
		}
	}
	return pos == 4 || neg == 4
}

// jpegRoundTrip puts frame through JPEG at quality q, in place, a band of MCU rows at a time,
// stopping between bands once ctx is done. A band starts on an MCU row (16 rows), so the
// pixels are those of one round trip of the whole frame: image/jpeg codes each MCU alone.
func jpegRoundTrip(ctx context.Context, frame *image.RGBA, q int) error {
	w, h := frame.Rect.Dx(), frame.Rect.Dy()
	rows := max(16, bandPixels/max(w, 1)&^15)
	var buf bytes.Buffer
	for y0 := 0; y0 < h; y0 += rows {
		if err := stopped(ctx); err != nil {
			return err
		}
		r := image.Rect(0, y0, w, min(y0+rows, h)).Add(frame.Rect.Min)
		buf.Reset()
		if err := jpeg.Encode(&buf, frame.SubImage(r), &jpeg.Options{Quality: q}); err != nil {
			return fmt.Errorf("lens: JPEG round trip: %w", err)
		}
		img, err := jpeg.Decode(&buf)
		if err != nil {
			return fmt.Errorf("lens: JPEG round trip: %w", err)
		}
		draw.Draw(frame, r, img, img.Bounds().Min, draw.Src)
	}
	return nil
}
