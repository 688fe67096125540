//go:build vision

package worker

import (
	"context"
	"fmt"
	"hash/fnv"
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"

	"github.com/corral-farm/corral/vision"
)

// Icons are the shapes edge detection outlines (Canny, dilated so an icon's strokes join) on a
// copy of the screen at most iconWidth pixels wide, kept when their box is icon-sized (a side
// of iconMinFrac to iconMaxFrac of the screen's width, at most iconMaxAspect long) and mostly
// outside every text line. A box inside a kept box is a part of it. An icon's confidence is
// how icon-like its box is: half its contrast (the standard deviation of its gray levels over
// 64, at most 1), half its squareness (short side over long side).
const (
	iconWidth     = 540
	iconMinFrac   = 0.025
	iconMaxFrac   = 0.25
	iconMaxAspect = 3.0
	iconInText    = 0.4 // a box this much covered by text lines is text
	iconInIcon    = 0.8 // a box this much inside a kept icon is part of it
	iconMax       = 200
	idGrid        = 16 // pixels: a box's place in its id is rounded to this grid
)

// Elements lists a screen's text lines and icon-like shapes, top to bottom, left to right.
func (e *Engine) Elements(ctx context.Context, req vision.ElementsRequest) (vision.ElementsResult, error) {
	if err := checkVersion(req.V); err != nil {
		return vision.ElementsResult{}, err
	}
	langs, err := e.languages(req.Languages)
	if err != nil {
		return vision.ElementsResult{}, err
	}
	gray, err := decode(req.Image, "image", gocv.IMReadGrayScale)
	if err != nil {
		return vision.ElementsResult{}, err
	}
	defer gray.Close()
	done, err := e.acquire(ctx)
	if err != nil {
		return vision.ElementsResult{}, err
	}
	defer done()
	lines, err := e.ocr(ctx, gray, langs)
	if err != nil {
		return vision.ElementsResult{}, err
	}
	var els []vision.Element
	var text []image.Rectangle
	for _, l := range lines {
		els = append(els, vision.Element{Kind: "text", Text: l.Text, Box: l.Box, Confidence: l.Confidence})
		text = append(text, l.Box.Rect())
	}
	if err := ctx.Err(); err != nil {
		return vision.ElementsResult{}, err
	}
	els = append(els, icons(gray, text)...)
	sortReading(els, func(e vision.Element) vision.Box { return e.Box })
	seen := map[string]int{}
	for i := range els {
		id := elementID(els[i])
		if n := seen[id]; n > 0 {
			seen[id] = n + 1
			id = fmt.Sprintf("%s.%d", id, n+1)
		} else {
			seen[id] = 1
		}
		els[i].ID = id
	}
	return vision.ElementsResult{V: vision.WireVersion, Width: gray.Cols(), Height: gray.Rows(), Elements: els}, nil
}

// icons finds icon-like shapes in gray outside the text boxes.
func icons(gray gocv.Mat, text []image.Rectangle) []vision.Element {
	w, h := gray.Cols(), gray.Rows()
	f := min(1, float64(iconWidth)/float64(w))
	small := gray
	if f < 1 {
		small = gocv.NewMat()
		defer small.Close()
		gocv.Resize(gray, &small, image.Pt(max(1, int(float64(w)*f)), max(1, int(float64(h)*f))), 0, 0, gocv.InterpolationArea)
	}
	edges := gocv.NewMat()
	defer edges.Close()
	gocv.Canny(small, &edges, 40, 120)
	kernel := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
	defer kernel.Close()
	gocv.Dilate(edges, &edges, kernel)
	contours := gocv.FindContours(edges, gocv.RetrievalList, gocv.ChainApproxSimple)
	defer contours.Close()
	minSide, maxSide := max(12, int(iconMinFrac*float64(w))), int(iconMaxFrac*float64(w))
	bounds := image.Rect(0, 0, w, h)
	var boxes []image.Rectangle
	for i := range contours.Size() {
		r := scaleRect(gocv.BoundingRect(contours.At(i)), 1/f).Intersect(bounds)
		dx, dy := r.Dx(), r.Dy()
		if min(dx, dy) < minSide || max(dx, dy) > maxSide || float64(max(dx, dy)) > iconMaxAspect*float64(min(dx, dy)) {
			continue
		}
		if covered(r, text) >= iconInText {
			continue
		}
		boxes = append(boxes, r)
	}
	// The largest first: a box mostly inside a kept one is a part of that icon.
	slices.SortStableFunc(boxes, func(a, b image.Rectangle) int { return b.Dx()*b.Dy() - a.Dx()*a.Dy() })
	var kept []image.Rectangle
	for _, r := range boxes {
		if len(kept) == iconMax {
			break
		}
		if !slices.ContainsFunc(kept, func(k image.Rectangle) bool { return overlap(r, k) >= iconInIcon }) {
			kept = append(kept, r)
		}
	}
	out := make([]vision.Element, 0, len(kept))
	for _, r := range kept {
		contrast := min(1, stdDev(gray, r)/64)
		square := float64(min(r.Dx(), r.Dy())) / float64(max(r.Dx(), r.Dy()))
		out = append(out, vision.Element{Kind: "icon", Box: toBox(r), Confidence: math.Round((contrast+square)/2*100) / 100})
	}
	return out
}

// overlap is the part of a's area inside b.
func overlap(a, b image.Rectangle) float64 {
	in := a.Intersect(b)
	if in.Empty() || a.Empty() {
		return 0
	}
	return float64(in.Dx()*in.Dy()) / float64(a.Dx()*a.Dy())
}

// covered is the largest part of r's area inside one of boxes.
func covered(r image.Rectangle, boxes []image.Rectangle) float64 {
	best := 0.0
	for _, b := range boxes {
		best = max(best, overlap(r, b))
	}
	return best
}

// elementID is "t" or "i" and five hex digits of a hash of the element's kind, box (rounded to
// idGrid pixels) and text: the same content at the same place keeps its id between screens.
func elementID(el vision.Element) string {
	h := fnv.New32a()
	g := func(v int) int { return int(math.Round(float64(v) / idGrid)) }
	fmt.Fprintf(h, "%s|%d|%d|%d|%d|%s", el.Kind, g(el.Box.X), g(el.Box.Y), g(el.Box.W), g(el.Box.H), el.Text)
	return fmt.Sprintf("%c%05x", el.Kind[0], h.Sum32()&0xfffff)
}
