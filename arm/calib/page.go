package calib

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/corral-farm/corral/internal/geom"
)

// Page is the calibration page for a w×h screen: the whole screen lit white, so that its
// edges stand out against the dark phone body (FindScreenQuad fits a line to each), with a
// grey ring at each probe point (Probes(w, h, 9)) to show where the finger will touch. Its
// border stays clear for a tenth of the screen's width.
func Page(w, h int) image.Image {
	w, h = max(w, 1), max(h, 1)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
	r := math.Max(float64(min(w, h))/40, 3)
	grey := color.RGBA{150, 150, 150, 255}
	for _, p := range Probes(w, h, 9) {
		ring(img, p, r, grey)
	}
	return img
}

// ring draws a circle of radius r (2 px thick) and a dot at its centre.
func ring(img *image.RGBA, c geom.Point, r float64, col color.RGBA) {
	x0, x1 := int(c.X-r-2), int(c.X+r+2)
	y0, y1 := int(c.Y-r-2), int(c.Y+r+2)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			d := math.Hypot(float64(x)+0.5-c.X, float64(y)+0.5-c.Y)
			if math.Abs(d-r) <= 1 || d <= 2 {
				if (image.Point{x, y}).In(img.Rect) {
					img.SetRGBA(x, y, col)
				}
			}
		}
	}
}

// Probes are n points of a w×h screen to probe: a grid as square as n allows, spread over
// the screen 15% in from its edges (where no bezel or rounded corner gets in the way).
func Probes(w, h int, n int) []geom.Point {
	if n <= 0 || w <= 0 || h <= 0 {
		return nil
	}
	cols := max(1, int(math.Round(math.Sqrt(float64(n)*float64(w)/float64(h)))))
	rows := (n + cols - 1) / cols
	out := make([]geom.Point, 0, n)
	at := func(i, k int) float64 {
		if k == 1 {
			return 0.5
		}
		return 0.15 + 0.7*float64(i)/float64(k-1)
	}
	for r := 0; r < rows && len(out) < n; r++ {
		for c := 0; c < cols && len(out) < n; c++ {
			out = append(out, geom.Point{X: at(c, cols) * float64(w), Y: at(r, rows) * float64(h)})
		}
	}
	return out
}
