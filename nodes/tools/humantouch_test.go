package tools

import (
	"context"
	"image"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/nodes/device"
)

// anti_risk on a phone: taps land within a few pixels of the point and rest a finger's moment,
// inside the bbox aimed at and on the screen; swipes start and end near their points and take
// about the time asked; no two are alike.
func TestAntiRiskVariesTouches(t *testing.T) {
	const n = 60
	d := newAbled()
	var taps []device.Point
	var holds []time.Duration
	d.TapFn = func(_ context.Context, p device.Point, h time.Duration) error {
		taps, holds = append(taps, p), append(holds, h)
		return nil
	}
	for range n {
		mustRun(t, "tap_xy", d, `{"x":0.5,"y":0.5,"anti_risk":true}`)
	}
	centre := device.Point{X: 540, Y: 1200}
	for i, p := range taps {
		assert.LessOrEqual(t, dist(p, centre), 1080*tapSpread+1, "tap %d at %v", i, p)
		assert.True(t, holds[i] >= minRest && holds[i] < maxRest, "tap %d rested %s", i, holds[i])
	}
	assert.Greater(t, distinct(taps), n/4, "taps land on the same few pixels")

	// A 3-pixel-wide bbox keeps its taps; the screen's corner keeps them on the screen.
	taps = nil
	for range n {
		mustRun(t, "tap", d, `{"bbox":[0.5,0.5,0.502,0.6],"anti_risk":true}`)
		mustRun(t, "tap_xy", d, `{"x":1,"y":1,"anti_risk":true}`)
	}
	box := image.Rect(scale(0.5, 1080), scale(0.5, 2400), scale(0.502, 1080)+1, scale(0.6, 2400)+1)
	for i, p := range taps {
		on := image.Pt(p.X, p.Y).In(image.Rect(0, 0, 1080, 2400))
		if i%2 == 0 {
			on = image.Pt(p.X, p.Y).In(box)
		}
		assert.True(t, on, "tap %d at %v left its bbox %v or the screen", i, p, box)
	}

	var swipes [][2]device.Point
	var moves []time.Duration
	d.SwipeFn = func(_ context.Context, from, to device.Point, dur, _ time.Duration) error {
		swipes, moves = append(swipes, [2]device.Point{from, to}), append(moves, dur)
		return nil
	}
	for range n {
		mustRun(t, "swipe_coordinate", d, `{"from_x":0.5,"from_y":0.8,"to_x":0.5,"to_y":0.2,"duration":1,"anti_risk":true}`)
	}
	from, to := device.Point{X: 540, Y: scale(0.8, 2400)}, device.Point{X: 540, Y: scale(0.2, 2400)}
	var ends []device.Point
	for i, s := range swipes {
		assert.LessOrEqual(t, dist(s[0], from), 1080*swipeSpread+1, "swipe %d from %v", i, s[0])
		assert.LessOrEqual(t, dist(s[1], to), 1080*swipeSpread+1, "swipe %d to %v", i, s[1])
		assert.InDelta(t, time.Second, moves[i], float64(paceSpread*float64(time.Second))+1, "swipe %d took %s", i, moves[i])
		ends = append(ends, s[1])
	}
	assert.Greater(t, distinct(ends), n/4, "swipes end on the same few pixels")
}

func dist(a, b device.Point) float64 { return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)) }

func distinct(ps []device.Point) int {
	seen := map[device.Point]bool{}
	for _, p := range ps {
		seen[p] = true
	}
	return len(seen)
}

// Whatever the points, boxes and screen, a varied gesture stays on the screen and a marker
// draws it without panicking.
func FuzzHumanizeAndMark(f *testing.F) {
	f.Add(540, 1200, 600, 300, 0, 0, 10, 10, 1080, 2400, true)
	f.Add(-5, 99999, 0, 0, 5, 5, 4, 4, 1, 1, false)
	f.Fuzz(func(t *testing.T, fx, fy, tx, ty, bx0, by0, bx1, by1, w, h int, move bool) {
		if w <= 0 || h <= 0 || w > 5000 || h > 5000 {
			return
		}
		g := gesture{from: device.Point{X: fx, Y: fy}, to: device.Point{X: tx, Y: ty}, move: move, taps: 1, dur: time.Second}
		box := image.Rect(bx0, by0, bx1, by1)
		humanize(&g, box, device.Size{Width: w, Height: h})
		screen := image.Rect(0, 0, w, h)
		if !image.Pt(g.from.X, g.from.Y).In(screen) || !image.Pt(g.to.X, g.to.Y).In(screen) {
			t.Fatalf("%+v left the %dx%d screen", g, w, h)
		}
		canvas := image.NewRGBA(image.Rect(0, 0, min(w, 64), min(h, 64)))
		m := marker{img: canvas, sx: 64 / float64(w), sy: 64 / float64(h)}
		m.gesture(gesture{from: device.Point{X: fx, Y: fy}, to: device.Point{X: tx, Y: ty}, move: move, taps: 2}, box)
	})
}
