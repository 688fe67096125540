package calib

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/geom"
)

func sample() Calibration {
	return Calibration{Version: Version, Rig: "arm-1", ScreenW: 1080, ScreenH: 2400,
		Quad:           [4]geom.Point{{X: 200, Y: 150}, {X: 880, Y: 160}, {X: 870, Y: 1700}, {X: 190, Y: 1690}},
		ScreenToGantry: geom.Affine{0.065, -0.002, 40, 0.002, 0.065, 30}, ResidualP95MM: 0.08, ValidationErrMM: 0.1,
		Probes: 9, At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
}

func TestCalibrationJSON(t *testing.T) {
	c := sample()
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if *got != c {
		t.Fatalf("round trip: %+v, want %+v", *got, c)
	}
	for name, doc := range map[string]string{
		"corrupt":       `{"version":1,`,
		"no version":    `{"rig":"x"}`,
		"version 2":     `{"version":2}`,
		"unknown field": string(data[:len(data)-1]) + `,"extra":1}`,
		"trailing":      string(data) + `{}`,
		"insane":        `{"version":1,"screen_w":1080,"screen_h":2400}`,
	} {
		if _, err := Parse([]byte(doc)); !errors.Is(err, ErrBadCalibration) {
			t.Errorf("%s: got %v, want ErrBadCalibration", name, err)
		}
	}
}

func TestCalibrationConversions(t *testing.T) {
	c := sample()
	p := geom.Point{X: 500, Y: 1000}
	mm, err := c.ToGantry(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.ToScreen(mm).Dist(p); d > 1e-9 {
		t.Fatalf("round trip %g px off", d)
	}
	if math.Abs(c.MMPerPixel()-math.Hypot(0.065, 0.002)) > 1e-9 {
		t.Fatalf("pitch %g", c.MMPerPixel())
	}
	for _, off := range []geom.Point{{X: -10, Y: 5}, {X: 1100, Y: 5}, {X: 5, Y: 2405}, {X: math.NaN(), Y: 0}} {
		if _, err := c.ToGantry(off); !errors.Is(err, ErrOffScreen) {
			t.Errorf("%v: got %v, want ErrOffScreen", off, err)
		}
	}
	if _, err := c.ToGantry(geom.Point{X: -2, Y: 2401}); err != nil {
		t.Errorf("a point just off the edge is refused: %v", err)
	}
	lo, hi := c.Limits()
	for _, k := range []geom.Point{{X: 0, Y: 0}, {X: 1080, Y: 2400}, {X: 0, Y: 2400}} {
		q := c.ScreenToGantry.Apply(k)
		if q.X < lo.X-1e-9 || q.Y < lo.Y-1e-9 || q.X > hi.X+1e-9 || q.Y > hi.Y+1e-9 {
			t.Errorf("corner %v at %v is outside the limits %v–%v", k, q, lo, hi)
		}
	}
	stretched := sample()
	stretched.ScreenToGantry = geom.Affine{0.065, 0, 0, 0, 0.03, 0}
	flat := sample()
	flat.ScreenToGantry = geom.Affine{0.065, 0.065, 0, 0.065, 0.065, 0}
	bad := sample()
	bad.ResidualP95MM = 2
	for name, c := range map[string]Calibration{"stretched": stretched, "singular": flat, "residual": bad} {
		if err := c.Validate(); !errors.Is(err, ErrBadCalibration) {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

func TestFitGantryDropsOneOutlier(t *testing.T) {
	truth := geom.Affine{0.06, -0.004, 50, 0.004, 0.06, 30}
	var px, mm []geom.Point
	for i, p := range Probes(1080, 2400, 9) {
		px = append(px, p)
		m := truth.Apply(p)
		if i == 4 {
			m = m.Add(geom.Point{X: 3, Y: -2}) // a misread touch
		}
		mm = append(mm, m)
	}
	f, err := FitProbes(px, mm)
	if err != nil {
		t.Fatal(err)
	}
	if f.Dropped != 4 {
		t.Fatalf("dropped %d, want 4", f.Dropped)
	}
	a, kept, err := FitGantry(px, mm)
	if err != nil || len(kept) != 8 || slicesMax(kept) > 1e-9 {
		t.Fatalf("kept residuals %v, err %v", kept, err)
	}
	if d := a.Apply(geom.Point{X: 540, Y: 1200}).Dist(truth.Apply(geom.Point{X: 540, Y: 1200})); d > 1e-9 {
		t.Fatalf("the fit is %g mm off", d)
	}
	// Good probes: nothing is dropped.
	mm[4] = truth.Apply(px[4])
	if f, _ := FitProbes(px, mm); f.Dropped != -1 {
		t.Fatalf("dropped %d of clean probes", f.Dropped)
	}
	if _, _, err := FitGantry(px[:2], mm[:2]); !errors.Is(err, geom.ErrDegenerate) {
		t.Fatalf("two probes: %v", err)
	}
}

func slicesMax(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

func FuzzParse(f *testing.F) {
	data, _ := json.Marshal(sample())
	f.Add(data)
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":1,"quad":[{"X":1e308,"Y":-1e308}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrBadCalibration) {
				t.Fatalf("error without ErrBadCalibration: %v", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse accepted what Validate refuses: %v", err)
		}
		mm, err := c.ToGantry(geom.Point{X: float64(c.ScreenW) / 2, Y: float64(c.ScreenH) / 2})
		if err != nil || !mm.Finite() {
			t.Fatalf("the centre of the screen maps to %v, %v", mm, err)
		}
	})
}
