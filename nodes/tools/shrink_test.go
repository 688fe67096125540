package tools

import (
	"image"
	"math/rand/v2"
	"testing"
)

// noise is a w×h image of random opaque pixels.
func noise(w, h int, seed uint64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.Uint32())
		if i%4 == 3 {
			img.Pix[i] = 0xff
		}
	}
	return img
}

// shrinkAll shrinks src to w×h in one go.
func shrinkAll(src *image.RGBA, w, h int) *image.RGBA {
	s := newShrinker(src, w, h)
	s.rows(0, h)
	return s.dst
}

// Each output pixel is the rounded mean of the whole source pixels under it, whatever the
// ratio and the source's origin.
func TestShrinkerAverages(t *testing.T) {
	src := noise(37, 53, 1).SubImage(image.Rect(2, 3, 37, 53)).(*image.RGBA) // 35×50 at (2,3)
	for _, size := range []image.Point{{10, 14}, {35, 50}, {17, 25}, {1, 1}, {34, 3}} {
		got := shrinkAll(src, size.X, size.Y)
		for j := range size.Y {
			for i := range size.X {
				x0, x1 := 2+i*35/size.X, 2+(i+1)*35/size.X
				y0, y1 := 3+j*50/size.Y, 3+(j+1)*50/size.Y
				for c := range 4 {
					sum, n := 0, 0
					for y := y0; y < y1; y++ {
						for x := x0; x < x1; x++ {
							sum += int(src.Pix[src.PixOffset(x, y)+c])
							n++
						}
					}
					if want, g := uint8((sum+n/2)/n), got.Pix[got.PixOffset(i, j)+c]; g != want {
						t.Fatalf("%v: pixel (%d,%d) channel %d is %d, want the mean %d", size, i, j, c, g, want)
					}
				}
			}
		}
	}
}

// At half the size it gives what halve gives.
func TestShrinkerHalvesAsHalve(t *testing.T) {
	src := noise(1080, 2400, 2)
	got, want := shrinkAll(src, 540, 1200), halved(t, src).(*image.RGBA)
	if got.Bounds() != want.Bounds() || string(got.Pix) != string(want.Pix) {
		t.Error("shrinking to half differs from halve")
	}
}

// The output rows ready after n source rows need no row past n, and all are ready at the end.
func TestShrinkerReady(t *testing.T) {
	for _, size := range []image.Point{{540, 1200}, {700, 1556}, {1079, 2399}, {64, 142}} {
		s := newShrinker(image.NewRGBA(image.Rect(0, 0, 1080, 2400)), size.X, size.Y)
		for n := 0; n <= 2400; n++ {
			if r := s.ready(n); r > 0 && s.srcRow(r) > n {
				t.Fatalf("%v: %d rows ready after %d source rows, but the last needs rows up to %d", size, r, n, s.srcRow(r))
			}
		}
		if s.ready(2400) != size.Y {
			t.Errorf("%v: %d rows ready at the end", size, s.ready(2400))
		}
	}
}
