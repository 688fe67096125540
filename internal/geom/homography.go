package geom

import (
	"fmt"
	"math"
)

// Homography is a projective map of the plane, a row-major 3×3 matrix acting on homogeneous
// coordinates: (x, y) ↦ ((h0x+h1y+h2)/w, (h3x+h4y+h5)/w) with w = h6x+h7y+h8.
type Homography [9]float64

// Identity is the homography that leaves every point where it is.
func Identity() Homography { return Homography{1, 0, 0, 0, 1, 0, 0, 0, 1} }

// Scaling is the homography (x, y) ↦ (sx·x, sy·y).
func Scaling(sx, sy float64) Homography { return Homography{sx, 0, 0, 0, sy, 0, 0, 0, 1} }

// Apply maps p. A point on the line the homography sends to infinity maps to a point whose
// coordinates are not finite (see Point.Finite).
func (h Homography) Apply(p Point) Point {
	w := h[6]*p.X + h[7]*p.Y + h[8]
	return Point{(h[0]*p.X + h[1]*p.Y + h[2]) / w, (h[3]*p.X + h[4]*p.Y + h[5]) / w}
}

// Mul is the homography that applies g first, then h.
func (h Homography) Mul(g Homography) Homography {
	var r Homography
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r[3*i+j] = h[3*i]*g[j] + h[3*i+1]*g[3+j] + h[3*i+2]*g[6+j]
		}
	}
	return r
}

// det is the determinant of h's matrix.
func (h Homography) det() float64 {
	return h[0]*(h[4]*h[8]-h[5]*h[7]) - h[1]*(h[3]*h[8]-h[5]*h[6]) + h[2]*(h[3]*h[7]-h[4]*h[6])
}

// Inverse is the homography that undoes h. A singular h (one that collapses the plane onto
// a line or a point) has none.
func (h Homography) Inverse() (Homography, error) {
	adj := Homography{
		h[4]*h[8] - h[5]*h[7], h[2]*h[7] - h[1]*h[8], h[1]*h[5] - h[2]*h[4],
		h[5]*h[6] - h[3]*h[8], h[0]*h[8] - h[2]*h[6], h[2]*h[3] - h[0]*h[5],
		h[3]*h[7] - h[4]*h[6], h[1]*h[6] - h[0]*h[7], h[0]*h[4] - h[1]*h[3],
	}
	det := h[0]*adj[0] + h[1]*adj[3] + h[2]*adj[6]
	if !(math.Abs(det) > 1e-12*math.Pow(h.norm(), 3)) {
		return Homography{}, fmt.Errorf("%w: the homography is singular (determinant %g): it flattens the plane and cannot be inverted", ErrDegenerate, det)
	}
	for i := range adj {
		adj[i] /= det
	}
	return adj.normalised(), nil
}

func (h Homography) norm() float64 {
	var s float64
	for _, v := range h {
		s += v * v
	}
	return math.Sqrt(s)
}

// normalised scales h so that h8 = 1 when that is possible, else so that its norm is 1.
func (h Homography) normalised() Homography {
	k := h[8]
	if math.Abs(k) < 1e-12*h.norm() {
		k = h.norm()
	}
	for i := range h {
		h[i] /= k
	}
	return h
}

// FindHomography is the homography that maps each src[i] to dst[i]: exactly for four pairs,
// in the least-squares sense (of the algebraic error, after Hartley's normalisation) for
// more. Four pairs with three points on a line, collinear points, or pairs that allow no
// (or more than one) homography are refused with ErrDegenerate.
func FindHomography(src, dst []Point) (Homography, error) {
	if err := checkPairs("a homography", src, dst, 4); err != nil {
		return Homography{}, err
	}
	for _, side := range []struct {
		name string
		pts  []Point
	}{{"source", src}, {"destination", dst}} {
		if s := spread(side.pts); s < 1e-6 {
			return Homography{}, fmt.Errorf("%w: the %s points lie on a line (or on one point): a homography needs them spread in two directions", ErrDegenerate, side.name)
		}
		if len(side.pts) == 4 {
			if i, j, k, ok := threeCollinear(side.pts); ok {
				return Homography{}, fmt.Errorf("%w: %s points %d, %d and %d lie on a line: four pairs determine a homography only when no three are collinear", ErrDegenerate, side.name, i, j, k)
			}
		}
	}
	ns, nd := normalise(src), normalise(dst)
	// A^T A of the DLT system, accumulated row by row (two rows per pair).
	var ata [9][9]float64
	add := func(r [9]float64) {
		for i := 0; i < 9; i++ {
			if r[i] == 0 {
				continue
			}
			for j := i; j < 9; j++ {
				ata[i][j] += r[i] * r[j]
			}
		}
	}
	for i := range src {
		p, q := ns.apply(src[i]), nd.apply(dst[i])
		add([9]float64{-p.X, -p.Y, -1, 0, 0, 0, q.X * p.X, q.X * p.Y, q.X})
		add([9]float64{0, 0, 0, -p.X, -p.Y, -1, q.Y * p.X, q.Y * p.Y, q.Y})
	}
	for i := 0; i < 9; i++ {
		for j := 0; j < i; j++ {
			ata[i][j] = ata[j][i]
		}
	}
	vals, vecs := jacobiEigen(ata)
	// The solution is the eigenvector of the smallest eigenvalue; a second eigenvalue as
	// small means a family of solutions.
	lo, second := 0, -1
	for i := 1; i < 9; i++ {
		if vals[i] < vals[lo] {
			lo = i
		}
	}
	for i := 0; i < 9; i++ {
		if i != lo && (second < 0 || vals[i] < vals[second]) {
			second = i
		}
	}
	var top float64
	for _, v := range vals {
		top = math.Max(top, v)
	}
	if vals[second] < 1e-10*top {
		return Homography{}, fmt.Errorf("%w: the point pairs allow more than one homography", ErrDegenerate)
	}
	var hn Homography
	for i := 0; i < 9; i++ {
		hn[i] = vecs[i][lo]
	}
	// Undo the normalisation: H = Td⁻¹ · Hn · Ts.
	ts := Homography{ns.s, 0, -ns.s * ns.cx, 0, ns.s, -ns.s * ns.cy, 0, 0, 1}
	tdInv := Homography{1 / nd.s, 0, nd.cx, 0, 1 / nd.s, nd.cy, 0, 0, 1}
	h := tdInv.Mul(hn).Mul(ts)
	if !(math.Abs(hn.det()) > 1e-9) {
		return Homography{}, fmt.Errorf("%w: the best homography for these pairs is singular: do the points correspond?", ErrDegenerate)
	}
	h = h.normalised()
	for _, v := range h {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Homography{}, fmt.Errorf("%w: the homography is not finite", ErrDegenerate)
		}
	}
	return h, nil
}

// threeCollinear finds three of four points on a line (within a relative tolerance).
func threeCollinear(p []Point) (int, int, int, bool) {
	n := normalise(p)
	q := make([]Point, len(p))
	for i := range p {
		q[i] = n.apply(p[i])
	}
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			for k := j + 1; k < 4; k++ {
				a, b := q[j].Sub(q[i]), q[k].Sub(q[i])
				if math.Abs(a.X*b.Y-a.Y*b.X) < 1e-6 {
					return i, j, k, true
				}
			}
		}
	}
	return 0, 0, 0, false
}

// jacobiEigen diagonalises a symmetric matrix with cyclic Jacobi rotations: the eigenvalues
// and, in the columns of the second result, their unit eigenvectors.
func jacobiEigen(a [9][9]float64) ([9]float64, [9][9]float64) {
	const n = 9
	var v [n][n]float64
	for i := 0; i < n; i++ {
		v[i][i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		var off, diag float64
		for i := 0; i < n; i++ {
			diag += a[i][i] * a[i][i]
			for j := i + 1; j < n; j++ {
				off += a[i][j] * a[i][j]
			}
		}
		if off <= 1e-30*diag || off == 0 {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				if a[p][q] == 0 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < n; k++ {
					akp, akq := a[k][p], a[k][q]
					a[k][p] = c*akp - s*akq
					a[k][q] = s*akp + c*akq
				}
				for k := 0; k < n; k++ {
					apk, aqk := a[p][k], a[q][k]
					a[p][k] = c*apk - s*aqk
					a[q][k] = s*apk + c*aqk
				}
				for k := 0; k < n; k++ {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p] = c*vkp - s*vkq
					v[k][q] = s*vkp + c*vkq
				}
			}
		}
	}
	var vals [n]float64
	for i := 0; i < n; i++ {
		vals[i] = a[i][i]
	}
	return vals, v
}
