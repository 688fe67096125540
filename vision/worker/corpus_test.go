//go:build vision

package worker

import (
	"bytes"
	"image"
	"testing"

	"gocv.io/x/gocv"

	"github.com/corral-farm/corral/vision/corpus"
)

// The test screens come from package corpus, which draws them with their ground truth.

// drawScreen draws sp.
func drawScreen(t testing.TB, sp corpus.Spec) *corpus.Screen {
	t.Helper()
	s, err := corpus.Draw(sp)
	if err != nil {
		t.Fatalf("draw %s: %v (make setup installs the fonts)", sp.Name(), err)
	}
	return s
}

// settingsScreen is a 1080×2400 settings screen: a title and a button, rows of an icon, a label
// and often a value, a navigation bar of three icons.
func settingsScreen(t testing.TB, dark bool) *corpus.Screen {
	t.Helper()
	return drawScreen(t, corpus.Spec{Layout: corpus.Settings, Dark: dark, Seed: 1})
}

// row is the n-th list row of a settings screen (from 0): its element (label and box).
func row(t testing.TB, s *corpus.Screen, n int) corpus.Element {
	t.Helper()
	if n+1 >= len(s.Elements) {
		t.Fatalf("%s has %d elements", s.Name, len(s.Elements))
	}
	return s.Elements[n+1] // the first is the Search button
}

// encodePNG encodes img as a PNG, with OpenCV when it is an RGBA image at (0, 0) (Go's encoder
// takes seconds for a screen under the race detector).
func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	rgba, ok := img.(*image.RGBA)
	if !ok || rgba.Rect.Min != (image.Point{}) || rgba.Stride != 4*rgba.Rect.Dx() {
		b, err := corpus.EncodePNG(img)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	m := rgbaMat(t, rgba)
	defer m.Close()
	return encodeMat(t, m)
}

// rgbaMat is img as a BGR Mat.
func rgbaMat(t testing.TB, img *image.RGBA) gocv.Mat {
	t.Helper()
	src, err := gocv.NewMatFromBytes(img.Rect.Dy(), img.Rect.Dx(), gocv.MatTypeCV8UC4, img.Pix)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bgr := gocv.NewMat()
	gocv.CvtColor(src, &bgr, gocv.ColorRGBAToBGR)
	return bgr
}

func encodeMat(t testing.TB, m gocv.Mat) []byte {
	t.Helper()
	buf, err := gocv.IMEncodeWithParams(gocv.PNGFileExt, m, []int{gocv.IMWritePngCompression, 1})
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	return bytes.Clone(buf.GetBytes())
}

// scaledPNG is img resized by f (bicubic, as a phone of another density shows it), as a PNG.
func scaledPNG(t testing.TB, img *image.RGBA, f float64) []byte {
	t.Helper()
	m := rgbaMat(t, img)
	defer m.Close()
	if f == 1 {
		return encodeMat(t, m)
	}
	out := gocv.NewMat()
	defer out.Close()
	size := image.Pt(int(float64(img.Rect.Dx())*f+0.5), int(float64(img.Rect.Dy())*f+0.5))
	gocv.Resize(m, &out, size, 0, 0, gocv.InterpolationCubic)
	return encodeMat(t, out)
}
