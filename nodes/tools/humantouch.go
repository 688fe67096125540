package tools

import (
	"image"
	"math"
	"math/rand/v2"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// anti_risk on a platform with fingers: a finger never lands twice on the same pixel, rests a
// moment on a plain tap, and moves at a pace of its own. Anti-fraud checks look at exactly
// these (HttpRunner's anti_risk hands a device's touch details to its own checker). Drivers
// move in straight lines, so a swipe's path varies at its ends and in its time, not in its
// shape. What a gesture aims at stays what it hits: a touch inside a box it aims at stays in it.
const (
	tapSpread   = 1.0 / 150 // of the screen's shorter side: 7 px on a 1080-wide phone
	swipeSpread = 1.0 / 60  // 18 px
	paceSpread  = 0.15      // holds and moves last up to 15% more or less
	minRest     = 40 * time.Millisecond
	maxRest     = 110 * time.Millisecond // a plain tap rests between these: under any long press
)

// humanize varies g as a finger would, inside box when it starts there, on the screen s.
func humanize(g *gesture, box image.Rectangle, s device.Size) {
	short := float64(min(s.Width, s.Height))
	if !g.move {
		g.from = jitter(g.from, max(2, short*tapSpread), box, s)
		g.to = g.from
		switch {
		case g.taps == 1 && g.hold == 0:
			g.hold = minRest + rand.N(maxRest-minRest)
		case g.hold > 0:
			g.hold = vary(g.hold)
		}
		return
	}
	r := max(4, short*swipeSpread)
	g.from, g.to = jitter(g.from, r, box, s), jitter(g.to, r, image.Rectangle{}, s)
	g.dur = vary(g.dur)
	if g.hold > 0 {
		g.hold = vary(g.hold)
	}
}

// jitter moves p to a random point within r pixels of it, kept in box if p is in it, and on
// the screen.
func jitter(p device.Point, r float64, box image.Rectangle, s device.Size) device.Point {
	angle, dist := rand.Float64()*2*math.Pi, r*math.Sqrt(rand.Float64()) // even over the disc
	q := image.Pt(p.X+int(math.Round(dist*math.Cos(angle))), p.Y+int(math.Round(dist*math.Sin(angle))))
	bounds := image.Rect(0, 0, s.Width, s.Height)
	if in := box.Intersect(bounds); image.Pt(p.X, p.Y).In(in) {
		bounds = in
	}
	return device.Point{X: max(bounds.Min.X, min(bounds.Max.X-1, q.X)), Y: max(bounds.Min.Y, min(bounds.Max.Y-1, q.Y))}
}

// vary lengthens or shortens d by up to paceSpread.
func vary(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (1 + paceSpread*(2*rand.Float64()-1)))
}
