package tools

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

// testImage is a w×h picture with edges and gradients in every strip.
func testImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 7), uint8(y * 3), uint8((x ^ y) & 0xff), 0xff})
		}
	}
	return img
}

// The strips, joined, decode to exactly the pixels of a serial encoding.
func TestEncodeStripsDecodesAsSerial(t *testing.T) {
	for _, tc := range []struct{ w, h, n int }{
		{1080, 2400, 2}, {1080, 2400, 8}, {1081, 2401, 3}, {720, 1600, 5}, {64, 600, 2}, {100, 100, 4},
	} {
		img := testImage(tc.w, tc.h)
		serial, err := encodeOne(t.Context(), img, 85)
		if err != nil {
			t.Fatal(err)
		}
		joined, err := encodeStrips(t.Context(), img, 85, tc.n)
		if err != nil {
			t.Fatalf("%dx%d in %d: %v", tc.w, tc.h, tc.n, err)
		}
		want, err := jpeg.Decode(bytes.NewReader(serial))
		if err != nil {
			t.Fatal(err)
		}
		got, err := jpeg.Decode(bytes.NewReader(joined))
		if err != nil {
			t.Fatalf("%dx%d in %d strips: the joined JPEG does not decode: %v", tc.w, tc.h, tc.n, err)
		}
		if got.Bounds() != want.Bounds() {
			t.Fatalf("%dx%d in %d: bounds %v, want %v", tc.w, tc.h, tc.n, got.Bounds(), want.Bounds())
		}
		g, w := got.(*image.YCbCr), want.(*image.YCbCr)
		if !bytes.Equal(g.Y, w.Y) || !bytes.Equal(g.Cb, w.Cb) || !bytes.Equal(g.Cr, w.Cr) {
			t.Errorf("%dx%d in %d strips: pixels differ from the serial encoding", tc.w, tc.h, tc.n)
		}
	}
}

// A sub-image (bounds not at the origin) and a gray image encode too.
func TestEncodeStripsOddInputs(t *testing.T) {
	sub := testImage(600, 1200).SubImage(image.Rect(10, 20, 590, 1190))
	gray := image.NewGray(image.Rect(0, 0, 300, 900))
	for name, img := range map[string]image.Image{"sub-image": sub, "gray": gray} {
		b, err := encodeStrips(t.Context(), img, 70, 4)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Bounds().Size() != img.Bounds().Size() {
			t.Errorf("%s: size %v, want %v", name, got.Bounds().Size(), img.Bounds().Size())
		}
	}
}

// BenchmarkEncodeJPEG compares the serial encoder with strips on the cores there are, on a
// phone-sized screen.
func BenchmarkEncodeJPEG(b *testing.B) {
	img := testImage(1080, 2400)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodeOne(b.Context(), img, 85); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("strips", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodeStrips(b.Context(), img, 85, 8); err != nil {
				b.Fatal(err)
			}
		}
	})
}
