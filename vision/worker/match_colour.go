//go:build vision

package worker

import (
	"cmp"
	"context"
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"

	"github.com/corral-farm/corral/vision"
)

// Gray correlation cannot tell icons that differ only in colour: the same shape in red and in
// blue on a flat background is, in gray, the same picture in another contrast, and normalised
// correlation ignores contrast, so both score 1 (and icons alike but for their colours 0.98 or
// more). Among matches that close, the one whose mean colour is nearest the template's comes
// first. The colour image is decoded only when some matches are that close.
const (
	colourTieSpan = 0.02 // gray scores within this of a group's best are told apart by colour
	colourSame    = 4.0  // mean colours (BGR levels, Euclidean) within this of each other are one colour
)

// colourTieBreak orders each group of matches (best first, by gray score) whose scores are
// within colourTieSpan of the group's first: nearest the template's mean colour first; among
// those of one colour (within colourSame of the nearest), as before (score, top-most, left-most).
func colourTieBreak(ctx context.Context, imgData, tplData []byte, ms []vision.Match) ([]vision.Match, error) {
	if !anyGroup(ms) {
		return ms, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	img, err := decode(imgData, "image", gocv.IMReadColor)
	if err != nil {
		return nil, err
	}
	defer img.Close()
	tpl, err := decode(tplData, "template", gocv.IMReadColor)
	if err != nil {
		return nil, err
	}
	defer tpl.Close()
	want := tpl.Mean()
	dist := func(m vision.Match) float64 {
		r := m.Box.Rect().Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
		region := img.Region(r)
		defer region.Close()
		got := region.Mean()
		return math.Sqrt(sq(got.Val1-want.Val1) + sq(got.Val2-want.Val2) + sq(got.Val3-want.Val3))
	}
	out := make([]vision.Match, 0, len(ms))
	for i := 0; i < len(ms); {
		j := i + 1
		for j < len(ms) && ms[j].Score >= ms[i].Score-colourTieSpan {
			j++
		}
		out = append(out, byColour(ms[i:j], dist)...)
		i = j
	}
	return out, nil
}

// anyGroup says whether some two matches (best first) are within colourTieSpan: only then is
// colour looked at.
func anyGroup(ms []vision.Match) bool {
	for i := 1; i < len(ms); i++ {
		if ms[i].Score >= ms[i-1].Score-colourTieSpan {
			return true
		}
	}
	return false
}

// byColour orders group (best first by gray score) nearest colour first: the matches within
// colourSame of the nearest keep their order, then the same for the rest.
func byColour(group []vision.Match, dist func(vision.Match) float64) []vision.Match {
	if len(group) < 2 {
		return group
	}
	type scored struct {
		m vision.Match
		d float64
	}
	rest := make([]scored, len(group))
	for i, m := range group {
		rest[i] = scored{m, dist(m)}
	}
	out := make([]vision.Match, 0, len(group))
	for len(rest) > 0 {
		near := slices.MinFunc(rest, func(a, b scored) int { return cmp.Compare(a.d, b.d) }).d
		var far []scored
		for _, s := range rest { // rest keeps the group's order: best first
			if s.d <= near+colourSame {
				out = append(out, s.m)
			} else {
				far = append(far, s)
			}
		}
		rest = far
	}
	return out
}

func sq(x float64) float64 { return x * x }
