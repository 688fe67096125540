package geom

import (
	"errors"
	"fmt"
	"math"
)

// Point is a point of the plane: pixels or millimetres, depending on who holds it.
type Point struct{ X, Y float64 }

// Add is p+q.
func (p Point) Add(q Point) Point { return Point{p.X + q.X, p.Y + q.Y} }

// Sub is p-q.
func (p Point) Sub(q Point) Point { return Point{p.X - q.X, p.Y - q.Y} }

// Scale is p·k.
func (p Point) Scale(k float64) Point { return Point{p.X * k, p.Y * k} }

// Dist is the distance between p and q.
func (p Point) Dist(q Point) float64 { return math.Hypot(p.X-q.X, p.Y-q.Y) }

// Finite says whether both coordinates are finite numbers.
func (p Point) Finite() bool {
	return !math.IsNaN(p.X) && !math.IsNaN(p.Y) && !math.IsInf(p.X, 0) && !math.IsInf(p.Y, 0)
}

// String prints p with two decimals.
func (p Point) String() string { return fmt.Sprintf("(%.2f, %.2f)", p.X, p.Y) }

// ErrDegenerate says that points do not determine a transform: too few, collinear, repeated,
// or not finite.
var ErrDegenerate = errors.New("geom: degenerate points")

// checkPairs refuses correspondences a fit cannot use.
func checkPairs(kind string, src, dst []Point, min int) error {
	if len(src) != len(dst) {
		return fmt.Errorf("%w: %s needs as many destination points as source points, got %d and %d", ErrDegenerate, kind, len(src), len(dst))
	}
	if len(src) < min {
		return fmt.Errorf("%w: %s needs at least %d point pairs, got %d", ErrDegenerate, kind, min, len(src))
	}
	for i := range src {
		if !src[i].Finite() || !dst[i].Finite() {
			return fmt.Errorf("%w: %s: pair %d is not finite (%v → %v)", ErrDegenerate, kind, i, src[i], dst[i])
		}
	}
	return nil
}

// normaliser is Hartley's normalisation: it moves the centroid of points to the origin and
// scales them so their mean distance from it is √2.
type normaliser struct{ cx, cy, s float64 }

func normalise(pts []Point) normaliser {
	var n normaliser
	for _, p := range pts {
		n.cx += p.X
		n.cy += p.Y
	}
	n.cx /= float64(len(pts))
	n.cy /= float64(len(pts))
	var d float64
	for _, p := range pts {
		d += math.Hypot(p.X-n.cx, p.Y-n.cy)
	}
	d /= float64(len(pts))
	n.s = 1
	if d > 0 {
		n.s = math.Sqrt2 / d
	}
	return n
}

func (n normaliser) apply(p Point) Point { return Point{(p.X - n.cx) * n.s, (p.Y - n.cy) * n.s} }

// spread is the ratio of the smaller to the larger principal axis of points (0 when they
// are collinear or all equal, 1 when they spread evenly in both directions).
func spread(pts []Point) float64 {
	n := normalise(pts)
	var sxx, sxy, syy float64
	for _, p := range pts {
		q := n.apply(p)
		sxx += q.X * q.X
		sxy += q.X * q.Y
		syy += q.Y * q.Y
	}
	tr, det := sxx+syy, sxx*syy-sxy*sxy
	disc := math.Sqrt(math.Max(tr*tr/4-det, 0))
	hi, lo := tr/2+disc, tr/2-disc
	if hi <= 0 {
		return 0
	}
	return math.Sqrt(math.Max(lo, 0) / hi)
}
