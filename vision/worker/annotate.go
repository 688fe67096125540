//go:build vision

package worker

import (
	"context"
	"image"
	"image/color"
	"strings"
	"unicode/utf8"

	"gocv.io/x/gocv"

	"github.com/corral-farm/corral/vision"
)

// Annotations are drawn in annotateColor, lines about 1/360 of the image's width thick,
// labels in OpenCV's Hershey font (ASCII: other characters show as '?') on a filled tab above
// the box, and encoded as JPEG at annotateQuality.
var (
	annotateColor   = color.RGBA{R: 255, G: 40, B: 120, A: 255}
	annotateQuality = 80
)

// Annotate draws the marks' boxes and labels on an image and returns it as JPEG.
func (e *Engine) Annotate(ctx context.Context, req vision.AnnotateRequest) (vision.AnnotateResult, error) {
	if err := checkVersion(req.V); err != nil {
		return vision.AnnotateResult{}, err
	}
	if len(req.Marks) > MaxMarks {
		return vision.AnnotateResult{}, badInput("%d marks: at most %d per image", len(req.Marks), MaxMarks)
	}
	for i, m := range req.Marks {
		if m.Box.W < 0 || m.Box.H < 0 {
			return vision.AnnotateResult{}, badInput("mark %d has a negative size (%d×%d): w and h are the box's width and height", i, m.Box.W, m.Box.H)
		}
		if n := utf8.RuneCountInString(m.Label); n > MaxLabelRunes {
			return vision.AnnotateResult{}, badInput("mark %d's label has %d characters: at most %d", i, n, MaxLabelRunes)
		}
	}
	img, err := decode(req.Image, "image", gocv.IMReadColor)
	if err != nil {
		return vision.AnnotateResult{}, err
	}
	defer img.Close()
	done, err := e.acquire(ctx)
	if err != nil {
		return vision.AnnotateResult{}, err
	}
	defer done()
	w, h := img.Cols(), img.Rows()
	bounds := image.Rect(0, 0, w, h)
	thick := max(2, w/360)
	fontScale := max(0.5, float64(w)/1080)
	white := color.RGBA{R: 255, G: 255, B: 255, A: 255}
	for _, m := range req.Marks {
		// Boxes far outside the image are clipped before OpenCV sees them.
		r, ok := clip(m.Box, bounds)
		if !ok {
			continue
		}
		gocv.Rectangle(&img, r, annotateColor, thick)
		label := asciiLabel(m.Label)
		if label == "" {
			continue
		}
		size := gocv.GetTextSize(label, gocv.FontHersheySimplex, fontScale, thick/2+1)
		pad := thick
		tab := image.Rect(r.Min.X, r.Min.Y-size.Y-2*pad, r.Min.X+size.X+2*pad, r.Min.Y)
		if tab.Min.Y < 0 { // no room above: inside the box's top
			tab = tab.Add(image.Pt(0, r.Min.Y-tab.Min.Y))
		}
		gocv.Rectangle(&img, tab.Intersect(bounds), annotateColor, -1)
		gocv.PutText(&img, label, image.Pt(tab.Min.X+pad, tab.Max.Y-pad), gocv.FontHersheySimplex, fontScale, white, thick/2+1)
	}
	if err := ctx.Err(); err != nil {
		return vision.AnnotateResult{}, err
	}
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, img, []int{gocv.IMWriteJpegQuality, annotateQuality})
	if err != nil {
		return vision.AnnotateResult{}, &vision.Error{Code: vision.CodeFailed, Message: "annotate: encode the JPEG: " + err.Error()}
	}
	defer buf.Close()
	return vision.AnnotateResult{V: vision.WireVersion, JPEG: append([]byte(nil), buf.GetBytes()...)}, nil
}

// clip is b within bounds, false when nothing of it is inside. Coordinates are bounded first,
// so that no sum overflows.
func clip(b vision.Box, bounds image.Rectangle) (image.Rectangle, bool) {
	lim := func(v int) int { return min(max(v, -1<<40), 1<<40) }
	x, y := lim(b.X), lim(b.Y)
	r := image.Rect(x, y, x+lim(b.W), y+lim(b.H)).Intersect(bounds)
	return r, !r.Empty()
}

func asciiLabel(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f:
			return -1
		case r > 0x7e:
			return '?'
		}
		return r
	}, s)
}
