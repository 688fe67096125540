package tools

import (
	"image"
	"image/color"
	"testing"
)

// halve averages each 2x2 block of an RGBA image, odd last rows and columns dropped, whatever
// the image's origin; other images are scaled the general way.
func TestHalve(t *testing.T) {
	src := image.NewRGBA(image.Rect(3, 7, 8, 12)) // 5x5 at an odd origin
	for y := 7; y < 12; y++ {
		for x := 3; x < 8; x++ {
			src.Set(x, y, color.RGBA{uint8(10 * (x - 3)), uint8(20 * (y - 7)), 100, 255})
		}
	}
	got := halved(t, src).(*image.RGBA)
	if got.Bounds() != image.Rect(0, 0, 2, 2) {
		t.Fatalf("bounds %v", got.Bounds())
	}
	for y := range 2 {
		for x := range 2 {
			want := color.RGBA{uint8(20*x + 5), uint8(40*y + 10), 100, 255}
			if c := got.RGBAAt(x, y); c != want {
				t.Errorf("(%d,%d) = %v, want the average %v", x, y, c, want)
			}
		}
	}
	gray := image.NewGray(image.Rect(0, 0, 4, 4))
	if b := halved(t, gray).Bounds(); b != image.Rect(0, 0, 2, 2) {
		t.Errorf("a gray image halves to %v", b)
	}
	if b := halved(t, image.NewRGBA(image.Rect(0, 0, 1, 9))).Bounds(); b != image.Rect(0, 0, 1, 4) {
		t.Errorf("a one-pixel-wide image halves to %v", b)
	}
}

// FitWidth halves as far as it can, then scales the rest of the way.
func TestFitWidthHalvesFirst(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for _, c := range []struct{ max, w, h int }{{540, 540, 1200}, {720, 720, 1600}, {300, 300, 667}, {1080, 1080, 2400}, {0, 1080, 2400}} {
		if b := fitted(t, src, c.max).Bounds(); b.Dx() != c.w || b.Dy() != c.h {
			t.Errorf("FitWidth(1080x2400, %d) = %v, want %dx%d", c.max, b, c.w, c.h)
		}
	}
}
