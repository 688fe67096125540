package geom

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func randomHomography(rng *rand.Rand) Homography {
	// A camera-like view of a 1080×2400 screen: rotation, scale, offset, mild perspective.
	a := (rng.Float64() - 0.5) * 0.6
	s := 0.3 + rng.Float64()
	return Homography{
		s * math.Cos(a), -s * math.Sin(a), rng.Float64() * 500,
		s * math.Sin(a), s * math.Cos(a), rng.Float64() * 500,
		(rng.Float64() - 0.5) * 2e-4, (rng.Float64() - 0.5) * 2e-4, 1,
	}
}

func screenCorners(w, h float64) []Point {
	return []Point{{0, 0}, {w, 0}, {w, h}, {0, h}}
}

func TestFindHomographyRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		h := randomHomography(rng)
		src := screenCorners(1080, 2400)
		if i%2 == 1 {
			for k := 0; k < 20; k++ {
				src = append(src, Point{rng.Float64() * 1080, rng.Float64() * 2400})
			}
		}
		dst := make([]Point, len(src))
		for k, p := range src {
			dst[k] = h.Apply(p)
		}
		got, err := FindHomography(src, dst)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		inv, err := got.Inverse()
		if err != nil {
			t.Fatalf("case %d: inverse: %v", i, err)
		}
		for k := 0; k < 50; k++ {
			p := Point{rng.Float64() * 1080, rng.Float64() * 2400}
			if d := got.Apply(p).Dist(h.Apply(p)); d > 1e-6 {
				t.Fatalf("case %d: %v maps %.3g px away from the true transform", i, p, d)
			}
			if d := inv.Apply(got.Apply(p)).Dist(p); d > 1e-6 {
				t.Fatalf("case %d: %v comes back %.3g px away through the inverse", i, p, d)
			}
		}
	}
}

func TestFindHomographyNoise(t *testing.T) {
	// 40 pairs with 0.5 px of noise on the destination: the fit is better than any one pair.
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50; i++ {
		h := randomHomography(rng)
		var src, dst []Point
		for k := 0; k < 40; k++ {
			p := Point{rng.Float64() * 1080, rng.Float64() * 2400}
			src = append(src, p)
			dst = append(dst, h.Apply(p).Add(Point{rng.NormFloat64() * 0.5, rng.NormFloat64() * 0.5}))
		}
		got, err := FindHomography(src, dst)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for _, p := range screenCorners(1080, 2400) {
			worst = math.Max(worst, got.Apply(p).Dist(h.Apply(p)))
		}
		if worst > 1.5 {
			t.Fatalf("case %d: a screen corner is %.2f px off with 0.5 px noise on 40 pairs", i, worst)
		}
	}
}

func TestFindHomographyDegenerate(t *testing.T) {
	sq := screenCorners(10, 10)
	for name, c := range map[string]struct{ src, dst []Point }{
		"three points":     {sq[:3], sq[:3]},
		"lengths differ":   {sq, sq[:3]},
		"collinear":        {[]Point{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}}, []Point{{0, 0}, {1, 0}, {2, 1}, {0, 3}, {4, 4}}},
		"three on a line":  {[]Point{{0, 0}, {5, 0}, {10, 0}, {0, 10}}, sq},
		"dst on a line":    {sq, []Point{{0, 0}, {1, 0}, {2, 0}, {3, 0}}},
		"repeated point":   {[]Point{{0, 0}, {0, 0}, {0, 0}, {0, 0}}, sq},
		"not finite":       {[]Point{{0, 0}, {math.NaN(), 0}, {10, 10}, {0, 10}}, sq},
		"dst three a line": {sq, []Point{{0, 0}, {5, 5}, {10, 10}, {0, 10}}},
	} {
		if _, err := FindHomography(c.src, c.dst); !errors.Is(err, ErrDegenerate) {
			t.Errorf("%s: got %v, want ErrDegenerate", name, err)
		}
	}
	if _, err := (Homography{1, 2, 3, 2, 4, 6, 0, 0, 1}).Inverse(); !errors.Is(err, ErrDegenerate) {
		t.Errorf("singular homography: got %v, want ErrDegenerate", err)
	}
}

func TestFitAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 100; i++ {
		a := rng.Float64() * 2 * math.Pi
		s := 0.05 + rng.Float64()*0.03
		want := Affine{s * math.Cos(a), -s * math.Sin(a), 40 + rng.Float64()*100, s * math.Sin(a), s * math.Cos(a), 20 + rng.Float64()*100}
		var src, dst, noisy []Point
		for k := 0; k < 3+i%10; k++ {
			p := Point{rng.Float64() * 1080, rng.Float64() * 2400}
			src = append(src, p)
			dst = append(dst, want.Apply(p))
			noisy = append(noisy, want.Apply(p).Add(Point{rng.NormFloat64() * 0.05, rng.NormFloat64() * 0.05}))
		}
		got, err := FitAffine(src, dst)
		if err != nil {
			t.Fatal(err)
		}
		for k, r := range Residuals(got, src, dst) {
			if r > 1e-9 {
				t.Fatalf("case %d: exact pair %d has residual %g", i, k, r)
			}
		}
		inv, err := got.Inverse()
		if err != nil {
			t.Fatal(err)
		}
		p := Point{rng.Float64() * 1080, rng.Float64() * 2400}
		if d := inv.Apply(got.Apply(p)).Dist(p); d > 1e-6 {
			t.Fatalf("case %d: round trip %g px off", i, d)
		}
		if len(src) >= 8 {
			got, err := FitAffine(src, noisy)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range screenCorners(1080, 2400) {
				if d := got.Apply(c).Dist(want.Apply(c)); d > 0.25 {
					t.Fatalf("case %d (%d pairs, 0.05 mm noise): corner %v is %.3f mm off", i, len(src), c, d)
				}
			}
		}
	}
	if _, err := FitAffine([]Point{{0, 0}, {1, 1}, {2, 2}}, []Point{{0, 0}, {1, 0}, {0, 1}}); !errors.Is(err, ErrDegenerate) {
		t.Errorf("collinear: got %v, want ErrDegenerate", err)
	}
	if _, err := FitAffine([]Point{{0, 0}, {1, 1}}, []Point{{0, 0}, {1, 0}}); !errors.Is(err, ErrDegenerate) {
		t.Errorf("two pairs: got %v, want ErrDegenerate", err)
	}
	if _, err := (Affine{1, 2, 0, 2, 4, 0}).Inverse(); !errors.Is(err, ErrDegenerate) {
		t.Errorf("singular: got %v, want ErrDegenerate", err)
	}
}

func TestAffineSingularValues(t *testing.T) {
	hi, lo := Affine{0, -3, 1, 2, 0, 1}.SingularValues()
	if math.Abs(hi-3) > 1e-12 || math.Abs(lo-2) > 1e-12 {
		t.Fatalf("got %g, %g; want 3, 2", hi, lo)
	}
}
