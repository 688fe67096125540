package rig

import (
	"time"

	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

// SwipeTime is how long a swipe from → to asked to take dur takes on the rig: longer when the
// finger's top speed (Config.MaxFeed, 200 mm/s by default) cannot cover the distance in dur
// (an 8 cm flick asked for in 150 ms takes 0.4 s); dur before the rig is calibrated
// (device.SwipeTimer).
func (d *Driver) SwipeTime(from, to device.Point, dur time.Duration) time.Duration {
	cal := d.cal.Load()
	if cal == nil {
		return dur
	}
	a, err := cal.ToGantry(geom.Point{X: float64(from.X) + 0.5, Y: float64(from.Y) + 0.5})
	if err != nil {
		return dur
	}
	b, err := cal.ToGantry(geom.Point{X: float64(to.X) + 0.5, Y: float64(to.Y) + 0.5})
	if err != nil {
		return dur
	}
	least := time.Duration(dist(a, b) / d.cfg.MaxFeed * float64(time.Minute))
	return max(dur, least.Round(time.Millisecond))
}
