package lens

import (
	"errors"
	"image"
	"image/color"
	"image/draw"
	"math"
	"testing"

	"github.com/corral-farm/corral/internal/geom"
)

func white(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
	return img
}

// inQuad says whether p is inside q by at least margin pixels (negative: outside by that).
func inQuad(q [4]geom.Point, p geom.Point) float64 {
	d := math.Inf(1)
	for i := 0; i < 4; i++ {
		a, b := q[i], q[(i+1)%4]
		e := b.Sub(a)
		// Signed distance to the edge, positive on the inner side (the quad is clockwise
		// on screen, y down).
		d = math.Min(d, (e.X*(p.Y-a.Y)-e.Y*(p.X-a.X))/math.Hypot(e.X, e.Y))
	}
	return d
}

func TestRenderWhiteScreenLandsOnQuad(t *testing.T) {
	for seed := int64(0); seed < 6; seed++ {
		c := Mild(seed, 360, 800).Only(EffectPerspective).Scaled(0.5)
		c.Background = color.RGBA{0, 0, 0, 255}
		frame, err := Render(white(360, 800), c)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range screenCorners(360, 800) {
			if d := c.ScreenToFrame().Apply(k).Dist(c.Quad[i]); d > 1e-6 {
				t.Fatalf("seed %d: ScreenToFrame takes corner %d %.3g px from the quad", seed, i, d)
			}
		}
		for y := 0; y < c.FrameH; y++ {
			for x := 0; x < c.FrameW; x++ {
				d := inQuad(c.Quad, geom.Point{X: float64(x) + 0.5, Y: float64(y) + 0.5})
				v := frame.RGBAAt(x, y).R
				if d > 1.5 && v != 255 || d < -1.5 && v != 0 {
					t.Fatalf("seed %d: pixel (%d,%d) %.1f px inside the quad is %d", seed, x, y, d, v)
				}
			}
		}
	}
}

func TestRenderMild(t *testing.T) {
	// Everything on: the screen is still bright and the mat dark, away from the edges.
	c := Mild(7, 540, 1200).Scaled(0.5)
	frame, err := Render(white(540, 1200), c)
	if err != nil {
		t.Fatal(err)
	}
	var in, out, nin, nout float64
	for y := 0; y < c.FrameH; y += 3 {
		for x := 0; x < c.FrameW; x += 3 {
			d := inQuad(c.Quad, geom.Point{X: float64(x) + 0.5, Y: float64(y) + 0.5})
			v := float64(frame.RGBAAt(x, y).G)
			switch {
			case d > 5:
				in, nin = in+v, nin+1
			case d < -5:
				out, nout = out+v, nout+1
			}
		}
	}
	if in/nin < 230 || out/nout > 60 {
		t.Fatalf("mean inside %.0f, outside %.0f", in/nin, out/nout)
	}
}

func TestRenderDeterministic(t *testing.T) {
	screen := white(300, 600)
	for y := 0; y < 600; y++ {
		for x := 0; x < 300; x++ {
			screen.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	a, err := Render(screen, Harsh(42, 300, 600).Scaled(0.4))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Render(screen, Harsh(42, 300, 600).Scaled(0.4))
	c, _ := Render(screen, Harsh(43, 300, 600).Scaled(0.4))
	if string(a.Pix) != string(b.Pix) {
		t.Fatal("one seed rendered two different frames")
	}
	if string(a.Pix) == string(c.Pix) {
		t.Fatal("two seeds rendered the same frame")
	}
	// The noise alone differs between seeds, too.
	n1, n2 := Plain(300, 600), Plain(300, 600)
	n1.Noise, n2.Noise, n2.Seed = 5, 5, 1
	x, _ := Render(screen, n1)
	z, _ := Render(screen, n2)
	if string(x.Pix) == string(z.Pix) {
		t.Fatal("the noise does not depend on the seed")
	}
}

func TestPresets(t *testing.T) {
	for seed := int64(0); seed < 200; seed++ {
		for name, c := range map[string]Conditions{"mild": Mild(seed, 1080, 2400), "harsh": Harsh(seed, 1080, 2400), "landscape": Mild(seed, 2400, 1080)} {
			if err := c.Check(); err != nil {
				t.Fatalf("%s %d: %v", name, seed, err)
			}
			lo, hi := bbox(c.Quad)
			if lo.X < 0 || lo.Y < 0 || hi.X > float64(c.FrameW) || hi.Y > float64(c.FrameH) {
				t.Fatalf("%s %d: the quad %v leaves the %d×%d frame", name, seed, c.Quad, c.FrameW, c.FrameH)
			}
			fill := math.Max((hi.X-lo.X)/float64(c.FrameW), (hi.Y-lo.Y)/float64(c.FrameH))
			if name != "harsh" && (fill < 0.68 || fill > 0.9) {
				t.Fatalf("%s %d: the screen fills %.2f of the frame", name, seed, fill)
			}
		}
	}
	c := Mild(1, 1080, 2400)
	for _, e := range Effects() {
		o := c.Only(e)
		if err := o.Check(); err != nil {
			t.Fatalf("%v: %v", e, err)
		}
		n := 0
		if o.Quad != Plain(1080, 2400).Quad {
			n++
		}
		for _, on := range []bool{o.Blur > 0, o.Noise > 0, o.Glare > 0, o.JPEGQuality > 0} {
			if on {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("Only(%v) keeps %d effects: %+v", e, n, o)
		}
	}
	if s := c.Scaled(0.5); s.FrameW != 540 || s.FrameH != 960 || s.Check() != nil {
		t.Fatalf("Scaled(0.5): %+v", s)
	}
	if g := c.Only(EffectGlare).GlareAt; g.X < 0 || g.Y < 0 || g.X > 1080 || g.Y > 2400 {
		t.Fatalf("the glare moved off the screen: %v", g)
	}
}

func TestRenderRefusesBadInput(t *testing.T) {
	degenerate := Plain(100, 100)
	degenerate.Quad[2] = degenerate.Quad[1]
	concave := Plain(100, 100)
	concave.Quad[2] = geom.Point{X: 20, Y: 20}
	huge := Plain(20000, 20000)
	bigFrame := Mild(1, 100, 200)
	bigFrame.FrameW, bigFrame.FrameH = 20000, 20000
	nanBlur := Plain(100, 100)
	nanBlur.Blur = math.NaN()
	badJPEG := Plain(100, 100)
	badJPEG.JPEGQuality = 101
	for name, c := range map[string]struct {
		img image.Image
		c   Conditions
	}{
		"zero size":         {white(1, 1), Plain(0, 0)},
		"zero frame":        {white(100, 200), func() Conditions { c := Mild(1, 100, 200); c.FrameW = 0; return c }()},
		"degenerate quad":   {white(100, 100), degenerate},
		"concave quad":      {white(100, 100), concave},
		"20000×20000":       {image.NewUniform(color.White), huge},
		"20000×20000 frame": {white(100, 200), bigFrame},
		"size mismatch":     {image.NewUniform(color.White), Mild(1, 100, 200)},
		"no screen":         {nil, Plain(100, 100)},
		"NaN blur":          {white(100, 100), nanBlur},
		"JPEG 101":          {white(100, 100), badJPEG},
	} {
		if _, err := Render(c.img, c.c); !errors.Is(err, ErrConditions) {
			t.Errorf("%s: got %v, want ErrConditions", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if h := degenerate.ScreenToFrame(); h != (geom.Homography{}) {
		t.Errorf("a degenerate quad has a ground truth: %v", h)
	}
}

func BenchmarkRender(b *testing.B) {
	screen := white(1080, 2400)
	for y := 0; y < 2400; y += 40 {
		draw.Draw(screen, image.Rect(0, y, 1080, y+20), image.Black, image.Point{}, draw.Src)
	}
	for _, c := range []struct {
		name string
		c    Conditions
	}{{"mild", Mild(1, 1080, 2400)}, {"harsh", Harsh(1, 1080, 2400)}, {"perspective", Mild(1, 1080, 2400).Only(EffectPerspective)}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Render(screen, c.c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
