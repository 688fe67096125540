package geom

import (
	"fmt"
	"math"
)

// Affine is an affine map of the plane, the top two rows of a 3×3 matrix:
// (x, y) ↦ (a0x+a1y+a2, a3x+a4y+a5). Screen pixels to gantry millimetres is one.
type Affine [6]float64

// Apply maps p.
func (a Affine) Apply(p Point) Point {
	return Point{a[0]*p.X + a[1]*p.Y + a[2], a[3]*p.X + a[4]*p.Y + a[5]}
}

// Det is the determinant of a's linear part: the factor by which it scales areas (negative
// when it mirrors).
func (a Affine) Det() float64 { return a[0]*a[4] - a[1]*a[3] }

// Homography is a as a homography.
func (a Affine) Homography() Homography {
	return Homography{a[0], a[1], a[2], a[3], a[4], a[5], 0, 0, 1}
}

// SingularValues are the largest and smallest stretch of a's linear part: a unit step in
// some direction becomes a step of length hi, in another of length lo.
func (a Affine) SingularValues() (hi, lo float64) {
	// Singular values of [[a0 a1][a3 a4]] from the eigenvalues of its Gram matrix.
	p := a[0]*a[0] + a[3]*a[3]
	q := a[1]*a[1] + a[4]*a[4]
	r := a[0]*a[1] + a[3]*a[4]
	tr, det := p+q, p*q-r*r
	disc := math.Sqrt(math.Max(tr*tr/4-det, 0))
	return math.Sqrt(tr/2 + disc), math.Sqrt(math.Max(tr/2-disc, 0))
}

// Inverse is the affine map that undoes a; a singular a has none.
func (a Affine) Inverse() (Affine, error) {
	det := a.Det()
	hi, _ := a.SingularValues()
	if !(math.Abs(det) > 1e-12*hi*hi) {
		return Affine{}, fmt.Errorf("%w: the affine map is singular (determinant %g): it flattens the plane and cannot be inverted", ErrDegenerate, det)
	}
	i0, i1 := a[4]/det, -a[1]/det
	i3, i4 := -a[3]/det, a[0]/det
	return Affine{i0, i1, -(i0*a[2] + i1*a[5]), i3, i4, -(i3*a[2] + i4*a[5])}, nil
}

// FitAffine is the affine map that takes each src[i] nearest to dst[i] in the least-squares
// sense. It needs at least three pairs whose source points are not on one line.
func FitAffine(src, dst []Point) (Affine, error) {
	if err := checkPairs("an affine map", src, dst, 3); err != nil {
		return Affine{}, err
	}
	if s := spread(src); s < 1e-6 {
		return Affine{}, fmt.Errorf("%w: the source points lie on a line (or on one point): an affine map needs them spread in two directions", ErrDegenerate)
	}
	// Centre (and scale) the source points so the normal equations are well conditioned.
	n := normalise(src)
	var mx, my float64
	for _, q := range dst {
		mx += q.X
		my += q.Y
	}
	mx /= float64(len(dst))
	my /= float64(len(dst))
	var sxx, sxy, syy, bxx, bxy, byx, byy float64
	for i := range src {
		p := n.apply(src[i])
		u, v := dst[i].X-mx, dst[i].Y-my
		sxx += p.X * p.X
		sxy += p.X * p.Y
		syy += p.Y * p.Y
		bxx += p.X * u
		bxy += p.Y * u
		byx += p.X * v
		byy += p.Y * v
	}
	det := sxx*syy - sxy*sxy
	if !(det > 1e-12*(sxx+syy)*(sxx+syy)) {
		return Affine{}, fmt.Errorf("%w: the source points lie on a line: an affine map needs them spread in two directions", ErrDegenerate)
	}
	// Solve [sxx sxy; sxy syy] [c0 c1]^T = [bx.. ] for each output coordinate.
	c0 := (syy*bxx - sxy*bxy) / det
	c1 := (sxx*bxy - sxy*bxx) / det
	c3 := (syy*byx - sxy*byy) / det
	c4 := (sxx*byy - sxy*byx) / det
	// dst ≈ c·((p - centre)·s) + mean.
	a := Affine{
		c0 * n.s, c1 * n.s, mx - (c0*n.cx+c1*n.cy)*n.s,
		c3 * n.s, c4 * n.s, my - (c3*n.cx+c4*n.cy)*n.s,
	}
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Affine{}, fmt.Errorf("%w: the affine fit is not finite", ErrDegenerate)
		}
	}
	return a, nil
}

// Residuals are the distances |a(src[i]) − dst[i]|, one per pair (as many as the shorter of
// src and dst).
func Residuals(a Affine, src, dst []Point) []float64 {
	n := min(len(src), len(dst))
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		out[i] = a.Apply(src[i]).Dist(dst[i])
	}
	return out
}
