package calib

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/corral-farm/corral/internal/geom"
)

// ErrNoScreen says that the frame shows no screen FindScreenQuad can use.
var ErrNoScreen = errors.New("calib: no screen in the camera's frame")

// maxFramePixels caps the frames FindScreenQuad and Rectify work on.
const maxFramePixels = 40_000_000

// gray is a frame's luma, one byte a pixel.
type gray struct {
	w, h int
	v    []uint8
}

func toGray(img image.Image) gray {
	b := img.Bounds()
	g := gray{w: b.Dx(), h: b.Dy()}
	var rgba *image.RGBA
	if r, ok := img.(*image.RGBA); ok {
		rgba = r
	} else {
		rgba = image.NewRGBA(image.Rect(0, 0, g.w, g.h))
		draw.Draw(rgba, rgba.Rect, img, b.Min, draw.Src)
	}
	g.v = make([]uint8, g.w*g.h)
	for y := 0; y < g.h; y++ {
		row := rgba.Pix[rgba.PixOffset(rgba.Rect.Min.X, rgba.Rect.Min.Y+y):]
		for x := 0; x < g.w; x++ {
			p := row[4*x : 4*x+3 : 4*x+3]
			g.v[y*g.w+x] = uint8((299*uint32(p[0]) + 587*uint32(p[1]) + 114*uint32(p[2]) + 500) / 1000)
		}
	}
	return g
}

// at is the luma at the continuous point p (bilinear; clamped at the border).
func (g gray) at(p geom.Point) float64 {
	u, v := p.X-0.5, p.Y-0.5
	u = math.Min(math.Max(u, 0), float64(g.w-1))
	v = math.Min(math.Max(v, 0), float64(g.h-1))
	x0, y0 := int(u), int(v)
	x1, y1 := min(x0+1, g.w-1), min(y0+1, g.h-1)
	fx, fy := u-float64(x0), v-float64(y0)
	a := float64(g.v[y0*g.w+x0])*(1-fx) + float64(g.v[y0*g.w+x1])*fx
	b := float64(g.v[y1*g.w+x0])*(1-fx) + float64(g.v[y1*g.w+x1])*fx
	return a*(1-fy) + b*fy
}

// otsu is the threshold that best splits the histogram of g in two.
func otsu(g gray) int {
	var hist [256]float64
	for _, v := range g.v {
		hist[v]++
	}
	total := float64(len(g.v))
	var sum float64
	for i, n := range hist {
		sum += float64(i) * n
	}
	var wb, sumB, best float64
	t := 128
	for i := 0; i < 256; i++ {
		wb += hist[i]
		if wb == 0 {
			continue
		}
		wf := total - wb
		if wf == 0 {
			break
		}
		sumB += float64(i) * hist[i]
		mb, mf := sumB/wb, (sum-sumB)/wf
		if between := wb * wf * (mb - mf) * (mb - mf); between > best {
			best, t = between, i
		}
	}
	return t
}

// largestBright is the largest 4-connected component of pixels brighter than t: a mask and
// its area.
func largestBright(g gray, t int) ([]bool, int) {
	label := make([]int32, len(g.v))
	var stack []int32
	var best, bestArea int32
	next := int32(0)
	for i, v := range g.v {
		if int(v) <= t || label[i] != 0 {
			continue
		}
		next++
		area := int32(0)
		label[i] = next
		stack = append(stack[:0], int32(i))
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			area++
			x, y := int(j)%g.w, int(j)/g.w
			for _, n := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if n[0] < 0 || n[1] < 0 || n[0] >= g.w || n[1] >= g.h {
					continue
				}
				k := n[1]*g.w + n[0]
				if label[k] == 0 && int(g.v[k]) > t {
					label[k] = next
					stack = append(stack, int32(k))
				}
			}
		}
		if area > bestArea {
			best, bestArea = next, area
		}
	}
	mask := make([]bool, len(g.v))
	for i, l := range label {
		mask[i] = l == best && best != 0
	}
	return mask, int(bestArea)
}

// FindScreenQuad finds the corners of the phone's screen (top-left, top-right, bottom-right,
// bottom-left, in frame pixels) in a camera frame taken while the phone shows Page: the
// largest bright region, its rough corners, then a line fitted to each edge through
// sub-pixel edge points (where the luma crosses midway between screen and body), the
// corners where the lines meet. The screen must be upright within ±30°.
func FindScreenQuad(frame image.Image) ([4]geom.Point, error) {
	var none [4]geom.Point
	if frame == nil {
		return none, fmt.Errorf("%w: no frame", ErrNoScreen)
	}
	b := frame.Bounds()
	if b.Dx() < 16 || b.Dy() < 16 || b.Dx()*b.Dy() > maxFramePixels {
		return none, fmt.Errorf("%w: a %d×%d frame: at least 16×16 and at most %d pixels", ErrNoScreen, b.Dx(), b.Dy(), maxFramePixels)
	}
	g := toGray(frame)
	t := otsu(g)
	mask, area := largestBright(g, t)
	if area < len(g.v)/50 {
		return none, fmt.Errorf("%w: the largest bright region is %d px, %.1f%% of the frame: is the phone under the camera, lit, showing the calibration page?", ErrNoScreen, area, 100*float64(area)/float64(len(g.v)))
	}
	// Rough corners: the extremes of x+y and x−y.
	var rough [4]geom.Point
	best := [4]float64{math.Inf(1), math.Inf(-1), math.Inf(-1), math.Inf(1)}
	touches := false
	for i, in := range mask {
		if !in {
			continue
		}
		x, y := float64(i%g.w)+0.5, float64(i/g.w)+0.5
		if i%g.w == 0 || i/g.w == 0 || i%g.w == g.w-1 || i/g.w == g.h-1 {
			touches = true
		}
		s, d := x+y, x-y
		if s < best[0] {
			best[0], rough[0] = s, geom.Point{X: x, Y: y}
		}
		if d > best[1] {
			best[1], rough[1] = d, geom.Point{X: x, Y: y}
		}
		if s > best[2] {
			best[2], rough[2] = s, geom.Point{X: x, Y: y}
		}
		if d < best[3] {
			best[3], rough[3] = d, geom.Point{X: x, Y: y}
		}
	}
	if touches {
		return none, fmt.Errorf("%w: the bright region touches the frame's border: the camera must see the whole screen with some phone body around it", ErrNoScreen)
	}
	var lines [4]line
	for i := 0; i < 4; i++ {
		l, err := fitEdge(g, rough[i], rough[(i+1)%4])
		if err != nil {
			return none, fmt.Errorf("%w: edge %d: %w", ErrNoScreen, i, err)
		}
		lines[i] = l
	}
	var q [4]geom.Point
	for i := 0; i < 4; i++ {
		p, ok := lines[(i+3)%4].meet(lines[i])
		if !ok || !p.Finite() || p.Dist(rough[i]) > 0.1*rough[i].Dist(rough[(i+2)%4]) {
			return none, fmt.Errorf("%w: the edges do not meet near corner %d: is the screen partly hidden?", ErrNoScreen, i)
		}
		q[i] = p
	}
	if _, err := geom.FindHomography([]geom.Point{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}, {X: 0, Y: 1}}, q[:]); err != nil {
		return none, fmt.Errorf("%w: the corners found, %v, are not a screen: %w", ErrNoScreen, q, err)
	}
	return q, nil
}

// line is the set of points p with n·p = c, |n| = 1.
type line struct {
	n geom.Point
	c float64
}

func (a line) meet(b line) (geom.Point, bool) {
	det := a.n.X*b.n.Y - a.n.Y*b.n.X
	if math.Abs(det) < 1e-9 {
		return geom.Point{}, false
	}
	return geom.Point{X: (a.c*b.n.Y - b.c*a.n.Y) / det, Y: (a.n.X*b.c - b.n.X*a.c) / det}, true
}

// fitLine is the total-least-squares line through pts.
func fitLine(pts []geom.Point) line {
	var mx, my float64
	for _, p := range pts {
		mx += p.X
		my += p.Y
	}
	mx /= float64(len(pts))
	my /= float64(len(pts))
	var sxx, sxy, syy float64
	for _, p := range pts {
		dx, dy := p.X-mx, p.Y-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	// The normal is the eigenvector of the smaller eigenvalue of the scatter matrix.
	theta := 0.5 * math.Atan2(2*sxy, sxx-syy) // direction of the line
	n := geom.Point{X: -math.Sin(theta), Y: math.Cos(theta)}
	return line{n: n, c: n.X*mx + n.Y*my}
}

// fitEdge fits a line to the screen's edge from corner a to corner b (clockwise, so the
// screen is on the right of a→b in image coordinates, where y grows down).
func fitEdge(g gray, a, b geom.Point) (line, error) {
	dir := b.Sub(a)
	length := math.Hypot(dir.X, dir.Y)
	if length < 8 {
		return line{}, errors.New("too short")
	}
	dir = dir.Scale(1 / length)
	in := geom.Point{X: -dir.Y, Y: dir.X} // towards the screen
	const n = 80
	reach := math.Max(6, math.Min(20, length/20))
	var pts []geom.Point
	for k := 0; k < n; k++ {
		s := 0.1 + 0.8*float64(k)/float64(n-1)
		base := a.Add(b.Sub(a).Scale(s))
		inside := g.at(base.Add(in.Scale(reach)))
		outside := g.at(base.Add(in.Scale(-reach)))
		if inside-outside < 20 {
			continue // a probe ring, or glare, too close to the edge
		}
		mid := (inside + outside) / 2
		// Walk from outside to inside in steps of a quarter pixel; the first crossing of mid.
		prev := g.at(base.Add(in.Scale(-reach)))
		for t := -reach + 0.25; t <= reach; t += 0.25 {
			v := g.at(base.Add(in.Scale(t)))
			if v >= mid && prev < mid {
				f := (mid - prev) / (v - prev)
				pts = append(pts, base.Add(in.Scale(t-0.25+0.25*f)))
				break
			}
			prev = v
		}
	}
	if len(pts) < n/4 {
		return line{}, fmt.Errorf("only %d of %d points along it look like an edge", len(pts), n)
	}
	l := fitLine(pts)
	// Once more without the points far from the first line (a ring, a speck of glare).
	var kept []geom.Point
	for _, p := range pts {
		if math.Abs(l.n.X*p.X+l.n.Y*p.Y-l.c) < 1.5 {
			kept = append(kept, p)
		}
	}
	if len(kept) >= n/4 {
		l = fitLine(kept)
	}
	return l, nil
}

// Rectify is the part of frame inside quad (the screen's corners: top-left, top-right,
// bottom-right, bottom-left) as a w×h image: the arm's screenshot. A quad that is not a
// view of a screen, or a size that is not positive (or over 40 M pixels), gives an image
// of that size that is black, or an empty one.
func Rectify(frame image.Image, quad [4]geom.Point, w, h int) *image.RGBA {
	img, _ := RectifyContext(context.Background(), frame, quad, w, h)
	return img
}

// rectifyBand is about how many pixels RectifyContext warps between two looks at its ctx: a
// few milliseconds of work, tens under the race detector on a loaded machine.
const rectifyBand = 1 << 17

// RectifyContext is Rectify that gives up with ctx's error once ctx is done: it warps a band
// of rows at a time. A screenshot's warp takes a second on a loaded machine under the race
// detector, past the grace a cancelled driver has to return.
func RectifyContext(ctx context.Context, frame image.Image, quad [4]geom.Point, w, h int) (*image.RGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w <= 0 || h <= 0 || w*h > maxFramePixels || w > 100000 || h > 100000 {
		return image.NewRGBA(image.Rect(0, 0, 0, 0)), nil
	}
	black := color.RGBA{A: 255}
	fw, fh := float64(w), float64(h)
	toFrame, err := geom.FindHomography([]geom.Point{{X: 0, Y: 0}, {X: fw, Y: 0}, {X: fw, Y: fh}, {X: 0, Y: fh}}, quad[:])
	if err != nil || frame == nil {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(img, img.Rect, image.NewUniform(black), image.Point{}, draw.Src)
		return img, nil
	}
	if !inFront(toFrame, fw, fh) {
		// The screen's plane folds over the horizon: WarpFill tells the sides apart by the
		// centre of the whole image, which a band would not see. Garbage in any case.
		return geom.WarpFill(frame, toFrame, w, h, black), nil
	}
	if _, ok := frame.(*image.RGBA); !ok { // once, not once a band
		b := frame.Bounds()
		rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Rect, frame, b.Min, draw.Src)
		frame = rgba
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	rows := max(1, rectifyBand/w)
	for y0 := 0; y0 < h; y0 += rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		band := dst.SubImage(image.Rect(0, y0, w, min(y0+rows, h))).(*image.RGBA)
		// WarpInto counts the band's rows from 0: move them down to y0.
		geom.WarpInto(band, frame, toFrame.Mul(geom.Homography{1, 0, 0, 0, 1, float64(y0), 0, 0, 1}), black)
	}
	return dst, nil
}

// inFront says whether the whole w×h image maps through toFrame to one side of its horizon:
// the homogeneous w is affine, so one sign at the four corners is one sign everywhere.
func inFront(toFrame geom.Homography, w, h float64) bool {
	var pos, neg int
	for _, p := range [4][2]float64{{0, 0}, {w, 0}, {w, h}, {0, h}} {
		switch W := toFrame[6]*p[0] + toFrame[7]*p[1] + toFrame[8]; {
		case W > 0:
			pos++
		case W < 0:
			neg++
		}
	}
	return pos == 4 || neg == 4
}
