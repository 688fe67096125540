package geom

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"testing"
)

// checker is a w×h image of 8-pixel squares.
func checker(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(40)
			if (x/8+y/8)%2 == 0 {
				v = 220
			}
			img.SetRGBA(x, y, color.RGBA{v, uint8(x), uint8(y), 255})
		}
	}
	return img
}

func TestWarpIdentityAndShift(t *testing.T) {
	src := checker(64, 48)
	got := Warp(src, Identity(), 64, 48)
	for i := range src.Pix {
		if got.Pix[i] != src.Pix[i] {
			t.Fatalf("identity warp changed byte %d: %d → %d", i, src.Pix[i], got.Pix[i])
		}
	}
	// A whole-pixel shift moves pixels exactly; what comes from outside is the background.
	bg := color.RGBA{1, 2, 3, 255}
	got = WarpFill(src, Homography{1, 0, 5, 0, 1, -3, 0, 0, 1}, 64, 48, bg)
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			want := bg
			if x+5 < 64 && y-3 >= 0 {
				want = src.RGBAAt(x+5, y-3)
			}
			if g := got.RGBAAt(x, y); g != want {
				t.Fatalf("(%d,%d) = %v, want %v", x, y, g, want)
			}
		}
	}
}

func TestWarpSourceTypes(t *testing.T) {
	// Every source type gives the same picture (up to its own colour rounding).
	rgba := checker(40, 30)
	nrgba := image.NewNRGBA(rgba.Rect)
	draw.Draw(nrgba, nrgba.Rect, rgba, image.Point{}, draw.Src)
	ycc := image.NewYCbCr(rgba.Rect, image.YCbCrSubsampleRatio444)
	for y := 0; y < 30; y++ {
		for x := 0; x < 40; x++ {
			c := rgba.RGBAAt(x, y)
			yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
			ycc.Y[ycc.YOffset(x, y)], ycc.Cb[ycc.COffset(x, y)], ycc.Cr[ycc.COffset(x, y)] = yy, cb, cr
		}
	}
	sub := checker(60, 50).SubImage(image.Rect(20, 20, 60, 50)) // Bounds().Min is not (0,0)
	h := Homography{0.9, 0.1, 2, -0.1, 0.95, 3, 1e-4, 0, 1}
	want := Warp(rgba, h, 40, 30)
	for name, src := range map[string]image.Image{"nrgba": nrgba, "ycbcr": ycc, "gray": image.NewGray(rgba.Rect)} {
		got := Warp(src, h, 40, 30)
		if name == "gray" {
			if got.RGBAAt(20, 15) != (color.RGBA{0, 0, 0, 255}) {
				t.Errorf("gray: %v", got.RGBAAt(20, 15))
			}
			continue
		}
		for i := range want.Pix {
			if d := int(got.Pix[i]) - int(want.Pix[i]); d < -3 || d > 3 {
				t.Fatalf("%s: byte %d is %d, rgba gives %d", name, i, got.Pix[i], want.Pix[i])
			}
		}
	}
	got := Warp(sub, Identity(), 40, 30)
	if got.RGBAAt(0, 0) != checker(60, 50).RGBAAt(20, 20) {
		t.Errorf("a sub-image's top-left is its (0,0): got %v", got.RGBAAt(0, 0))
	}
}

func TestWarpEdgeIsAntialiased(t *testing.T) {
	// A white square scaled down and moved half a pixel: its edge pixels are half covered.
	src := image.NewRGBA(image.Rect(0, 0, 10, 10))
	draw.Draw(src, src.Rect, image.White, image.Point{}, draw.Src)
	// dst→src: dst x maps to src x - 2.5 (so src's left edge is at dst x = 2.5).
	got := Warp(src, Homography{1, 0, -2.5, 0, 1, -2.5, 0, 0, 1}, 16, 16)
	if a := got.RGBAAt(2, 5).A; a < 100 || a > 155 {
		t.Errorf("edge pixel alpha %d, want about half", a)
	}
	if a := got.RGBAAt(5, 5).A; a != 255 {
		t.Errorf("inside alpha %d, want 255", a)
	}
	if a := got.RGBAAt(0, 5).A; a != 0 {
		t.Errorf("outside alpha %d, want 0", a)
	}
	if e := Warp(src, Identity(), 0, -4).Bounds(); !e.Empty() {
		t.Errorf("empty size gives %v", e)
	}
	// Behind the horizon, or a NaN map: background, no panic.
	WarpFill(src, Homography{1, 0, 0, 0, 1, 0, -1, 0, 1}, 16, 16, color.RGBA{A: 255})
	WarpFill(src, Homography{math.NaN()}, 16, 16, color.RGBA{A: 255})
}

func BenchmarkWarp(b *testing.B) {
	// A phone screen (1080×2400) as a camera sees it, rectified back: the arm's screenshot.
	src := checker(1080, 1920)
	h, err := FindHomography(screenCorners(1080, 2400), []Point{{210, 160}, {880, 190}, {860, 1700}, {190, 1680}})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		img  image.Image
	}{{"rgba", src}, {"ycbcr", toYCbCr(src)}} {
		b.Run(c.name, func(b *testing.B) {
			dst := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
			b.ReportAllocs()
			for b.Loop() {
				WarpInto(dst, c.img, h, color.RGBA{})
			}
		})
	}
}

func toYCbCr(src *image.RGBA) *image.YCbCr {
	out := image.NewYCbCr(src.Rect, image.YCbCrSubsampleRatio420)
	b := src.Rect
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := src.RGBAAt(x, y)
			yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
			out.Y[out.YOffset(x, y)] = yy
			out.Cb[out.COffset(x, y)], out.Cr[out.COffset(x, y)] = cb, cr
		}
	}
	return out
}
