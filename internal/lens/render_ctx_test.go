package lens

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"runtime"
	"testing"

	"github.com/corral-farm/corral/internal/ctxtest"
	"github.com/corral-farm/corral/internal/geom"
)

// Each stage of a render looks at its ctx as it goes (at least once a band of the warp or the
// JPEG, once a lookRows rows of the others), and a render whose deadline passes part way stops
// within a look of each worker, answering the cause: a phone's frame under -race on a loaded
// machine takes a second, which a task that gave up held a core for.
func TestRenderStopsPartWayWhenItsContextEnds(t *testing.T) {
	const w, h = 540, 1200
	screen := striped(w, h)
	mild := Mild(1, w, h)
	const between = 5 // looks before, between and after the stages
	warpBands := between + int64(h/(bandPixels/w))
	small := Plain(w, h).Scaled(0.4) // the screen halved first
	for _, c := range []struct {
		name  string
		c     Conditions
		looks int64 // at least, over the whole render
	}{
		{"warp", Plain(w, h), warpBands},
		{"blur", mild.Only(EffectBlur), warpBands + 2*h/lookRows},
		{"noise", mild.Only(EffectNoise), warpBands + h/lookRows},
		{"glare", mild.Only(EffectGlare), warpBands + h/2/lookRows}, // a glare as tall as half the screen at least
		{"jpeg", mild.Only(EffectJPEG), warpBands + int64(h/(bandPixels/w&^15))},
		{"halved", small, between + int64(h/2/lookRows+small.FrameH/(bandPixels/small.FrameW))},
		{"mild", mild, 0},
		{"harsh", Harsh(1, w, h), 0},
	} {
		full := ctxtest.New(t, 1<<62)
		if _, err := RenderContext(full, screen, c.c); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if looks := full.Looks(); looks < c.looks {
			t.Errorf("%s: %d looks at ctx over the render, want %d at least: it cannot stop part way", c.name, looks, c.looks)
		}
		const n = 3
		ctx := ctxtest.New(t, n)
		frame, err := RenderContext(ctx, screen, c.c)
		if !errors.Is(err, ctxtest.ErrTaskDeadline) || frame != nil {
			t.Errorf("%s: its ctx ended at look %d: %v, %v; want the cause %q", c.name, n+1, frame != nil, err, ctxtest.ErrTaskDeadline)
		}
		t.Logf("%s: %d looks at ctx over the render, %d when it ends at look %d", c.name, full.Looks(), ctx.Looks(), n+1)
		// Past the end: a look by each worker of the stage then running (geom.ParallelRows'), and
		// one between stages.
		if looks, most := ctx.Looks(), int64(n+1+2*runtime.GOMAXPROCS(0)+1); looks > most {
			t.Errorf("%s: %d looks at ctx, more than %d, though it ended at look %d (%d for the whole render): it went on", c.name, looks, most, n+1, full.Looks())
		}
	}
}

// Band by band, the warp is geom's one warp, and the JPEG round trip is one of the whole
// frame (each band starts on an MCU row), to the bit.
func TestRenderBandsAreWholeFrames(t *testing.T) {
	screen := striped(540, 1200)
	c := Mild(5, 540, 1200)
	toScreen, err := c.ScreenToFrame().Inverse()
	if err != nil {
		t.Fatal(err)
	}
	bg := color.RGBA{R: 30, G: 40, B: 50, A: 255}
	banded, err := warpBands(context.Background(), screen, toScreen, c.FrameW, c.FrameH, bg)
	if err != nil {
		t.Fatal(err)
	}
	if one := geom.WarpFill(screen, toScreen, c.FrameW, c.FrameH, bg); string(one.Pix) != string(banded.Pix) {
		t.Error("the warp in bands differs from one warp")
	}
	whole := image.NewRGBA(banded.Rect)
	copy(whole.Pix, banded.Pix)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, whole, &jpeg.Options{Quality: 60}); err != nil {
		t.Fatal(err)
	}
	dec, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	draw.Draw(whole, whole.Rect, dec, dec.Bounds().Min, draw.Src)
	if err := jpegRoundTrip(context.Background(), banded, 60); err != nil {
		t.Fatal(err)
	}
	if string(whole.Pix) != string(banded.Pix) {
		t.Error("the JPEG round trip in bands differs from one of the whole frame")
	}
}

// striped is a white screen with black stripes, some detail for every stage.
func striped(w, h int) *image.RGBA {
	screen := white(w, h)
	for y := 0; y < h; y += 40 {
		draw.Draw(screen, image.Rect(0, y, w, y+20), image.Black, image.Point{}, draw.Src)
	}
	return screen
}

// BenchmarkRenderContext is BenchmarkRender with a task's context (a cancelCtx to look at):
// against BenchmarkRender before the looks, they cost nothing measurable.
func BenchmarkRenderContext(b *testing.B) {
	screen := striped(1080, 2400) // BenchmarkRender's
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range []struct {
		name string
		c    Conditions
	}{{"mild", Mild(1, 1080, 2400)}, {"harsh", Harsh(1, 1080, 2400)}, {"perspective", Mild(1, 1080, 2400).Only(EffectPerspective)}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := RenderContext(ctx, screen, c.c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
