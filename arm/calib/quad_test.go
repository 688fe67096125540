package calib

import (
	"errors"
	"image"
	"image/color"
	"testing"

	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/internal/lens"
)

// quadError is the worst distance between a found quad and the true one, in frame pixels.
func quadError(got, want [4]geom.Point) float64 {
	var worst float64
	for i := range got {
		worst = max(worst, got[i].Dist(want[i]))
	}
	return worst
}

func TestFindScreenQuad(t *testing.T) {
	page := Page(1080, 2400)
	for _, c := range []struct {
		name  string
		c     func(seed int64) lens.Conditions
		bound float64
	}{
		{"mild", func(s int64) lens.Conditions { return lens.Mild(s, 1080, 2400) }, 0.5},
		{"harsh", func(s int64) lens.Conditions { return lens.Harsh(s, 1080, 2400) }, 1.5},
	} {
		for seed := int64(0); seed < 4; seed++ {
			cond := c.c(seed)
			frame, err := lens.Render(page, cond)
			if err != nil {
				t.Fatal(err)
			}
			q, err := FindScreenQuad(frame)
			if err != nil {
				t.Fatalf("%s %d: %v", c.name, seed, err)
			}
			e := quadError(q, cond.Quad)
			t.Logf("%s seed %d: corners within %.3f px", c.name, seed, e)
			if e > c.bound {
				t.Errorf("%s seed %d: a corner is %.2f px off (at most %.1f): got %v, want %v", c.name, seed, e, c.bound, q, cond.Quad)
			}
		}
	}
}

func TestFindScreenQuadRefuses(t *testing.T) {
	dark := image.NewRGBA(image.Rect(0, 0, 200, 300))
	for i := range dark.Pix {
		dark.Pix[i] = 20
	}
	// The whole frame bright: the screen fills it, its edges are not seen.
	bright := image.NewUniform(color.White)
	for name, img := range map[string]image.Image{"dark": dark, "tiny": image.NewRGBA(image.Rect(0, 0, 3, 3)), "nil": nil,
		"huge": bright, "all bright": Page(200, 300)} {
		if _, err := FindScreenQuad(img); !errors.Is(err, ErrNoScreen) {
			t.Errorf("%s: got %v, want ErrNoScreen", name, err)
		}
	}
}

func TestRectify(t *testing.T) {
	page := Page(540, 1200)
	cond := lens.Mild(3, 540, 1200).Only(lens.EffectPerspective)
	frame, err := lens.Render(page, cond)
	if err != nil {
		t.Fatal(err)
	}
	shot := Rectify(frame, cond.Quad, 540, 1200)
	// The probe rings come back where the page has them.
	for _, p := range Probes(540, 1200, 9) {
		if v := shot.RGBAAt(int(p.X), int(p.Y)).G; v > 200 {
			t.Errorf("probe dot at %v is %d in the screenshot, want grey", p, v)
		}
	}
	if v := shot.RGBAAt(20, 20).G; v < 240 {
		t.Errorf("a white corner is %d", v)
	}
	if r := Rectify(frame, [4]geom.Point{}, 10, 10); r.Bounds().Dx() != 10 || r.RGBAAt(5, 5) != (color.RGBA{A: 255}) {
		t.Errorf("a degenerate quad gives %v", r.RGBAAt(5, 5))
	}
	if r := Rectify(frame, cond.Quad, 20000, 20000); !r.Bounds().Empty() {
		t.Errorf("20000×20000: %v", r.Bounds())
	}
}
