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

// Template matching: normalised correlation (OpenCV's TM_CCOEFF_NORMED) of the gray template,
// resized to scales from MinScale to MaxScale, over the gray image. To stay fast on a full
// screen, the search runs on both images shrunk so the template is about coarseSide pixels,
// at matchSteps scales, keeps the promising places (a lower threshold, as shrinking blurs),
// and scores each again at full size in a small window around it, at its scale and the scales
// a third of a step beside it: 3×matchSteps-2 scales in all (19 from 0.75 to 1.5). Then
// scale 1 on its own (exactMatch): a crop of the same screen is always found.
const (
	matchSteps        = 7
	coarseSide        = 16   // pixels of the template's shorter side at its smallest scale, when coarse
	coarseSlack       = 0.25 // a coarse score this much under the threshold is still looked at
	matchMinTemplate  = 6    // pixels, either side
	textureMinStdDev  = 6.0  // gray levels: a template flatter than this has nothing to correlate
	matchMaxScaleSpan = 4.0  // MaxScale/MinScale
	nmsOverlap        = 0.3  // intersection over union above which two matches are one
)

// Match finds where a template shows in an image, best first.
func (e *Engine) Match(ctx context.Context, req vision.MatchRequest) (vision.MatchResult, error) {
	if err := checkVersion(req.V); err != nil {
		return vision.MatchResult{}, err
	}
	threshold, minScale, maxScale, maxN := req.Threshold, req.MinScale, req.MaxScale, req.Max
	if threshold == 0 {
		threshold = 0.8
	}
	if minScale == 0 {
		minScale = 0.75
	}
	if maxScale == 0 {
		maxScale = 1.5
	}
	if maxN == 0 {
		maxN = 5
	}
	switch {
	case !(threshold > 0 && threshold <= 1):
		return vision.MatchResult{}, badInput("threshold %v is not a normalised correlation in (0, 1]: 0.8 is a good start", threshold)
	case !(minScale >= 0.1 && maxScale <= 10 && minScale <= maxScale):
		return vision.MatchResult{}, badInput("scales %v..%v: need 0.1 ≤ min_scale ≤ max_scale ≤ 10", minScale, maxScale)
	case maxScale/minScale > matchMaxScaleSpan:
		return vision.MatchResult{}, badInput("scales %v..%v span more than %v×: narrow them", minScale, maxScale, matchMaxScaleSpan)
	case maxN < 0 || maxN > 100:
		return vision.MatchResult{}, badInput("max %d: ask for 1 to 100 matches", maxN)
	}
	img, err := decode(req.Image, "image", gocv.IMReadGrayScale)
	if err != nil {
		return vision.MatchResult{}, err
	}
	defer img.Close()
	tpl, err := decode(req.Template, "template", gocv.IMReadGrayScale)
	if err != nil {
		return vision.MatchResult{}, err
	}
	defer tpl.Close()
	iw, ih, tw, th := img.Cols(), img.Rows(), tpl.Cols(), tpl.Rows()
	if tw > iw || th > ih {
		return vision.MatchResult{}, badInput("the template (%d×%d) is larger than the image (%d×%d): cut it from a screenshot of the same device", tw, th, iw, ih)
	}
	if tw < matchMinTemplate || th < matchMinTemplate {
		return vision.MatchResult{}, badInput("the template is %d×%d: it needs at least %d pixels a side", tw, th, matchMinTemplate)
	}
	// Scales at which the template would not fit in the image are not searched.
	maxScale = min(maxScale, float64(iw)/float64(tw), float64(ih)/float64(th))
	if minScale*float64(min(tw, th)) < matchMinTemplate/2 {
		minScale = matchMinTemplate / 2 / float64(min(tw, th))
	}
	if maxScale < minScale {
		return vision.MatchResult{}, badInput("the template (%d×%d) does not fit in the image (%d×%d) at scale %v or more", tw, th, iw, ih, minScale)
	}
	if sd := stdDev(tpl, image.Rect(0, 0, tw, th)); sd < textureMinStdDev {
		return vision.MatchResult{}, badInput("the template has no texture (its pixels are nearly all one shade: standard deviation %.1f of 255): cut one that shows the icon's edges or text", sd)
	}
	done, err := e.acquire(ctx)
	if err != nil {
		return vision.MatchResult{}, err
	}
	defer done()
	matches, err := match(ctx, img, tpl, threshold, minScale, maxScale, maxN)
	if err != nil {
		return vision.MatchResult{}, err
	}
	if matches, err = colourTieBreak(ctx, req.Image, req.Template, matches); err != nil {
		return vision.MatchResult{}, err
	}
	return vision.MatchResult{V: vision.WireVersion, Matches: matches}, nil
}

type candidate struct {
	r     image.Rectangle // in the image's pixels
	score float64
	scale float64
}

func match(ctx context.Context, img, tpl gocv.Mat, threshold, minScale, maxScale float64, maxN int) ([]vision.Match, error) {
	iw, ih, tw, th := img.Cols(), img.Rows(), tpl.Cols(), tpl.Rows()
	// The coarse pass tries matchSteps scales, geometrically spaced; the fine pass tries each
	// candidate's scale and those a third of a step either side (a template some percent off
	// in scale still correlates well at full size, and much better than when coarse).
	scales := []float64{minScale}
	if maxScale > minScale*1.001 {
		scales = scales[:0]
		for i := range matchSteps {
			scales = append(scales, minScale*math.Pow(maxScale/minScale, float64(i)/float64(matchSteps-1)))
		}
	}
	step := 1.0
	if len(scales) > 1 {
		step = scales[1] / scales[0]
	}
	fineSteps := []float64{1 / math.Cbrt(step), 1, math.Cbrt(step)}
	// The coarse pass.
	c := min(1, max(0.15, coarseSide/(minScale*float64(min(tw, th)))))
	small, smallTpl := img, tpl
	if c < 1 {
		small, smallTpl = gocv.NewMat(), gocv.NewMat()
		defer small.Close()
		defer smallTpl.Close()
		gocv.Resize(img, &small, image.Pt(max(1, int(float64(iw)*c)), max(1, int(float64(ih)*c))), 0, 0, gocv.InterpolationArea)
		gocv.Resize(tpl, &smallTpl, image.Pt(max(1, int(float64(tw)*c)), max(1, int(float64(th)*c))), 0, 0, gocv.InterpolationArea)
	}
	var cands []candidate
	perScale := maxN
	for _, s := range scales {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		found, err := matchAt(small, smallTpl, s, threshold-coarseSlack, perScale)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			cands = append(cands, candidate{r: scaleRect(f.r, 1/c).Intersect(image.Rect(0, 0, iw, ih)), score: f.score, scale: s})
		}
	}
	cands = nms(cands, maxN+3)
	// The fine pass, at full size around each candidate.
	var fine []candidate
	margin := int(math.Ceil(2/c)) + 2
	for _, cd := range cands {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tries := fineSteps
		// A template cut from the same device's screen is at scale 1: try it exactly.
		if math.Abs(math.Log(cd.scale)) < math.Log(step)/2 {
			tries = append(slices.Clone(fineSteps), 1/cd.scale)
		}
		best, err := refine(img, tpl, cd, tries, minScale, maxScale, margin)
		if err != nil {
			return nil, err
		}
		if isMatch(img, best, threshold) {
			fine = append(fine, best)
		}
	}
	exact, err := exactMatch(ctx, img, tpl, small, smallTpl, c, threshold, minScale, maxScale, margin)
	if err != nil {
		return nil, err
	}
	fine = append(fine, exact...)
	fine = nms(fine, maxN)
	out := make([]vision.Match, 0, len(fine))
	for _, f := range fine {
		out = append(out, vision.Match{Box: toBox(f.r), Score: roundScore(f.score), Scale: math.Round(f.scale*1e3) / 1e3})
	}
	return out, nil
}

// isMatch says whether a refined candidate is a match: its score as the caller sees it (an
// exact crop's correlation comes out of float arithmetic a hair under 1) reaches the
// threshold, and it has some of the template's texture, as a flat patch of the image can
// correlate with anything through rounding.
func isMatch(img gocv.Mat, cd candidate, threshold float64) bool {
	return roundScore(cd.score) >= threshold && stdDev(img, cd.r) >= textureMinStdDev/2
}

// refine scores cd again at full size, in a window around it, at cd.scale times each of tries
// within the scales searched, and returns the best (score -1 when none fits).
func refine(img, tpl gocv.Mat, cd candidate, tries []float64, minScale, maxScale float64, margin int) (candidate, error) {
	iw, ih, tw, th := img.Cols(), img.Rows(), tpl.Cols(), tpl.Rows()
	best := candidate{score: -1}
	for _, f := range tries {
		s := cd.scale * f
		if s < minScale*0.9999 || s > maxScale*1.0001 {
			continue
		}
		sw, sh := int(math.Round(float64(tw)*s)), int(math.Round(float64(th)*s))
		grow := margin + max(abs(sw-cd.r.Dx()), abs(sh-cd.r.Dy()))
		win := cd.r.Inset(-grow).Intersect(image.Rect(0, 0, iw, ih))
		if sw < 1 || sh < 1 || sw > win.Dx() || sh > win.Dy() {
			continue
		}
		region := img.Region(win)
		found, err := matchAt(region, tpl, s, 0, 1)
		region.Close()
		if err != nil {
			return candidate{}, err
		}
		if len(found) > 0 && found[0].score > best.score {
			best = candidate{r: found[0].r.Add(win.Min), score: found[0].score, scale: s}
		}
	}
	return best, nil
}

// matchAt correlates tpl resized by s over img and returns up to n places scoring at least
// min, best first, each masked out before the next is looked for. The template must fit.
func matchAt(img, tpl gocv.Mat, s, minScore float64, n int) ([]candidate, error) {
	sw, sh := int(math.Round(float64(tpl.Cols())*s)), int(math.Round(float64(tpl.Rows())*s))
	if sw < 2 || sh < 2 || sw > img.Cols() || sh > img.Rows() {
		return nil, nil
	}
	t := tpl
	if sw != tpl.Cols() || sh != tpl.Rows() {
		t = gocv.NewMat()
		defer t.Close()
		interp := gocv.InterpolationArea
		if s > 1 {
			interp = gocv.InterpolationLinear
		}
		gocv.Resize(tpl, &t, image.Pt(sw, sh), 0, 0, interp)
	}
	res, mask := gocv.NewMat(), gocv.NewMat()
	defer res.Close()
	defer mask.Close()
	gocv.MatchTemplate(img, t, &res, gocv.TmCcoeffNormed, mask)
	if res.Empty() {
		return nil, nil
	}
	var out []candidate
	for len(out) < n {
		_, maxVal, _, loc := gocv.MinMaxLoc(res)
		score := float64(maxVal)
		if math.IsNaN(score) || score < minScore || score <= 0 {
			break
		}
		out = append(out, candidate{r: image.Rect(loc.X, loc.Y, loc.X+sw, loc.Y+sh), score: min(1, score), scale: s})
		// Mask the peak's neighbourhood: another match of the same place is no other match.
		hole := image.Rect(loc.X-sw/2, loc.Y-sh/2, loc.X+sw/2+1, loc.Y+sh/2+1).Intersect(image.Rect(0, 0, res.Cols(), res.Rows()))
		r := res.Region(hole)
		r.SetTo(gocv.NewScalar(-1, 0, 0, 0))
		r.Close()
	}
	return out, nil
}

// nms keeps the best of overlapping candidates, up to n, best first (bestFirst).
func nms(cs []candidate, n int) []candidate {
	slices.SortStableFunc(cs, bestFirst)
	var out []candidate
	for _, c := range cs {
		if len(out) == n {
			break
		}
		if !slices.ContainsFunc(out, func(o candidate) bool { return iou(o.r, c.r) > nmsOverlap }) {
			out = append(out, c)
		}
	}
	return out
}

// bestFirst orders candidates by score, highest first, as the caller sees it (to scoreDigits),
// then top-most, then left-most: a template that shows twice, equally well, is answered the
// same way every time, whichever place the search happened to find first (tap_cv taps the first).
// Match then orders close scores by colour (colourTieBreak).
func bestFirst(a, b candidate) int {
	if c := cmp.Compare(roundScore(b.score), roundScore(a.score)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.r.Min.Y, b.r.Min.Y); c != 0 {
		return c
	}
	return cmp.Compare(a.r.Min.X, b.r.Min.X)
}

// scoreDigits is the precision of a match's score in an answer: 4 decimals.
const scoreDigits = 1e4

func roundScore(s float64) float64 { return math.Round(s*scoreDigits) / scoreDigits }

func iou(a, b image.Rectangle) float64 {
	in := a.Intersect(b)
	if in.Empty() {
		return 0
	}
	i := float64(in.Dx() * in.Dy())
	return i / (float64(a.Dx()*a.Dy()+b.Dx()*b.Dy()) - i)
}

func scaleRect(r image.Rectangle, f float64) image.Rectangle {
	return image.Rect(int(math.Floor(float64(r.Min.X)*f)), int(math.Floor(float64(r.Min.Y)*f)),
		int(math.Ceil(float64(r.Max.X)*f)), int(math.Ceil(float64(r.Max.Y)*f)))
}

// stdDev is the standard deviation of m's gray levels in r.
func stdDev(m gocv.Mat, r image.Rectangle) float64 {
	r = r.Intersect(image.Rect(0, 0, m.Cols(), m.Rows()))
	if r.Empty() {
		return 0
	}
	region := m.Region(r)
	defer region.Close()
	mean, std := gocv.NewMat(), gocv.NewMat()
	defer mean.Close()
	defer std.Close()
	gocv.MeanStdDev(region, &mean, &std)
	return std.GetDoubleAt(0, 0)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
