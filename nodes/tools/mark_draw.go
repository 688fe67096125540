package tools

import (
	"image"
	"image/color"
	"math"

	"github.com/corral-farm/corral/nodes/device"
)

// marker draws marks on a scaled screen: sx, sy take screen pixels to its own.
type marker struct {
	img    *image.RGBA
	sx, sy float64
	pen    pen
}

// pen is how a stroke is drawn: its colour and width in pixels.
type pen struct {
	colour color.RGBA
	width  int
}

// Every mark is drawn twice: a white halo under a magenta stroke, seen on any screen.
var markPens = []pen{{color.RGBA{R: 255, G: 255, B: 255, A: 255}, markLine + 4}, {markColour, markLine}}

// gesture draws g, and box when it is not empty.
func (m marker) gesture(g gesture, box image.Rectangle) {
	for _, m.pen = range markPens {
		m.shapes(g, box)
	}
}

func (m marker) shapes(g gesture, box image.Rectangle) {
	if !box.Empty() {
		m.rect(m.at(device.Point{X: box.Min.X, Y: box.Min.Y}), m.at(device.Point{X: box.Max.X - 1, Y: box.Max.Y - 1}))
	}
	from := m.at(g.from)
	if g.move {
		to := m.at(g.to)
		m.disc(from, m.pen.width/2+3)
		m.line(from, to)
		m.arrowHead(from, to)
		return
	}
	for i := range max(g.taps, 1) {
		m.ring(from, float64(markRing+i*(markLine+4)))
	}
	m.line(from.Add(image.Pt(-markCross, 0)), from.Add(image.Pt(markCross, 0)))
	m.line(from.Add(image.Pt(0, -markCross)), from.Add(image.Pt(0, markCross)))
}

// at is screen point p in the image's pixels, kept near the image (drivers' points are on
// their screens: this only bounds the drawing of one that is not).
func (m marker) at(p device.Point) image.Point {
	b := m.img.Rect.Inset(-markRing)
	clamp := func(v float64, lo, hi int) int { return int(max(float64(lo), min(float64(hi), math.Round(v)))) }
	return image.Pt(clamp(float64(p.X)*m.sx, b.Min.X, b.Max.X), clamp(float64(p.Y)*m.sy, b.Min.Y, b.Max.Y))
}

// line draws a line from a to b.
func (m marker) line(a, b image.Point) {
	d := b.Sub(a)
	steps := max(abs(d.X), abs(d.Y), 1)
	for i := 0; i <= steps; i++ {
		m.disc(image.Pt(a.X+d.X*i/steps, a.Y+d.Y*i/steps), m.pen.width/2)
	}
}

// arrowHead draws two strokes back from to, 28° either side of the line from from.
func (m marker) arrowHead(from, to image.Point) {
	back := math.Atan2(float64(from.Y-to.Y), float64(from.X-to.X))
	for _, side := range []float64{-1, 1} {
		a := back + side*28*math.Pi/180
		m.line(to, to.Add(image.Pt(int(math.Round(markHead*math.Cos(a))), int(math.Round(markHead*math.Sin(a))))))
	}
}

// rect draws the outline of the box from lo to hi, corners included.
func (m marker) rect(lo, hi image.Point) {
	corners := []image.Point{lo, {hi.X, lo.Y}, hi, {lo.X, hi.Y}, lo}
	for i := range 4 {
		m.line(corners[i], corners[i+1])
	}
}

// ring draws a circle of radius r around c.
func (m marker) ring(c image.Point, r float64) {
	m.fill(c, int(r)+m.pen.width, func(d float64) bool { return math.Abs(d-r) <= float64(m.pen.width)/2 })
}

// disc fills the circle of radius r around c.
func (m marker) disc(c image.Point, r int) {
	m.fill(c, r, func(d float64) bool { return d <= float64(r) })
}

// fill colours the pixels within reach of c whose distance from it inside says.
func (m marker) fill(c image.Point, reach int, inside func(d float64) bool) {
	area := image.Rect(c.X-reach, c.Y-reach, c.X+reach+1, c.Y+reach+1).Intersect(m.img.Rect)
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			if inside(math.Hypot(float64(x-c.X), float64(y-c.Y))) {
				m.img.SetRGBA(x, y, m.pen.colour)
			}
		}
	}
}
