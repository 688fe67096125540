package calib

import (
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/internal/lens"
)

// trial is one rig: a hidden screen → gantry transform, a camera under lens.Mild, a
// calibration made the way the rig makes it, and taps on random 7 mm targets through it.
// It returns the taps' errors in mm.
func trial(t testing.TB, seed int64, page map[[2]int]*pageCache) []float64 {
	const w, h = 1080, 2400
	rng := rand.New(rand.NewPCG(uint64(seed), 0xacc))
	pitch := 0.05 + 0.03*rng.Float64()
	turn := (rng.Float64()*2 - 1) * 5 * math.Pi / 180
	sin, cos := math.Sincos(turn)
	truth := geom.Affine{pitch * cos, -pitch * sin, 30 + 40*rng.Float64(), pitch * sin, pitch * cos, 20 + 40*rng.Float64()}
	toScreen, _ := truth.Inverse()
	jitter := func() geom.Point { // the gantry's ±0.05 mm repeatability
		return geom.Point{X: (rng.Float64()*2 - 1) * 0.05, Y: (rng.Float64()*2 - 1) * 0.05}
	}
	// Probe: the rig taps a grid of gantry positions; the phone reports whole pixels.
	var px, mm []geom.Point
	for _, p := range Probes(w, h, 12) {
		at := truth.Apply(p).Add(geom.Point{X: rng.NormFloat64(), Y: rng.NormFloat64()}) // a rough grid
		landed := toScreen.Apply(at.Add(jitter()))
		px = append(px, geom.Point{X: math.Floor(landed.X) + 0.5, Y: math.Floor(landed.Y) + 0.5})
		mm = append(mm, at)
	}
	fit, _, err := FitGantry(px, mm)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	// The camera: the quad as FindScreenQuad finds it under lens.Mild.
	cond := lens.Mild(seed, w, h)
	frame, err := lens.Render(page[[2]int{w, h}].get(w, h), cond)
	if err != nil {
		t.Fatal(err)
	}
	quad, err := FindScreenQuad(frame)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	trueToFrame := cond.ScreenToFrame()
	foundToFrame, err := geom.FindHomography([]geom.Point{{X: 0, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}, {X: 0, Y: h}}, quad[:])
	if err != nil {
		t.Fatal(err)
	}
	frameToFound, _ := foundToFrame.Inverse()
	// Taps: a target at p shows in the screenshot at p'; the rig taps p' through the fit.
	margin := 3.5 / pitch
	var errs []float64
	for k := 0; k < 50; k++ {
		p := geom.Point{X: margin + rng.Float64()*(w-2*margin), Y: margin + rng.Float64()*(h-2*margin)}
		seen := frameToFound.Apply(trueToFrame.Apply(p))
		at := fit.Apply(seen).Add(jitter())
		errs = append(errs, at.Dist(truth.Apply(p)))
	}
	return errs
}

// pageCache draws the calibration page once.
type pageCache struct {
	once sync.Once
	img  image.Image
}

func (c *pageCache) get(w, h int) image.Image {
	c.once.Do(func() { c.img = Page(w, h) })
	return c.img
}

// accuracy runs seeds trials and returns the p95 tap error and the share of 7 mm targets hit.
func accuracy(t testing.TB, seeds int) (p95, hit float64) {
	pages := map[[2]int]*pageCache{{1080, 2400}: {}}
	var all []float64
	for seed := int64(0); seed < int64(seeds); seed++ {
		all = append(all, trial(t, seed, pages)...)
	}
	slices.Sort(all)
	n := 0
	for _, e := range all {
		if e <= 3.5 {
			n++
		}
	}
	return all[int(math.Ceil(0.95*float64(len(all))))-1], float64(n) / float64(len(all))
}

func TestTapAccuracy(t *testing.T) {
	seeds := 200
	if raceEnabled || testing.Short() {
		seeds = 20
	}
	p95, hit := accuracy(t, seeds)
	t.Logf("%d rigs, 50 taps each: p95 tap error %.3f mm, %.1f%% of 7 mm targets hit", seeds, p95, 100*hit)
	if p95 > 1.0 {
		t.Errorf("p95 tap error %.3f mm, want ≤ 1.0 mm", p95)
	}
	if hit < 1 {
		t.Errorf("%.2f%% of 7 mm targets hit, want 100%%", 100*hit)
	}
}

func BenchmarkTapAccuracy(b *testing.B) {
	var p95 float64
	for b.Loop() {
		p95, _ = accuracy(b, 200)
	}
	b.ReportMetric(p95, "p95-mm")
}
