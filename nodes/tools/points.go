package tools

import (
	"context"
	"math"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// Points and durations as agents give them (relative 0-1 or pixels, seconds), converted for
// the driver.

// seconds converts seconds to a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// relativePoint converts relative coordinates to pixels of the driver's screen.
func relativePoint(ctx context.Context, d device.Driver, x, y float64) (device.Point, error) {
	s, err := d.ScreenSize(ctx)
	if err != nil {
		return device.Point{}, err
	}
	return device.Point{X: scale(x, s.Width), Y: scale(y, s.Height)}, nil
}

// scale maps a relative coordinate in [0,1] to a pixel in [0, n-1].
func scale(v float64, n int) int {
	p := int(math.Round(v * float64(n-1)))
	return max(0, min(n-1, p))
}

// absolutePoint rounds pixel coordinates and checks that they lie on the driver's screen. The
// check is on the numbers as given, before they become ints: a number beyond int's range has
// no int (1e308 became -9223372036854775808), so the refusal names what the caller sent, and
// orRelative, the calling tool's way to give the point relative 0-1.
func absolutePoint(ctx context.Context, d device.Driver, x, y float64, orRelative string) (device.Point, error) {
	s, err := d.ScreenSize(ctx)
	if err != nil {
		return device.Point{}, err
	}
	if !onAxis(x, s.Width) || !onAxis(y, s.Height) {
		return device.Point{}, BadInput("pixel (%s, %s) is outside the %dx%d screen (x must be 0 to %d, y 0 to %d); call get_screen_size, or %s",
			FormatNumber(x), FormatNumber(y), s.Width, s.Height, s.Width-1, s.Height-1, orRelative)
	}
	return device.Point{X: int(math.Round(x)), Y: int(math.Round(y))}, nil
}

// onAxis says whether pixel coordinate v rounds to one of the n pixels of an axis (NaN does not).
func onAxis(v float64, n int) bool {
	r := math.Round(v)
	return r >= 0 && r < float64(n)
}

// relativeLine converts a relative from/to pair (fromX, fromY, toX, toY) to pixels with one
// screen size lookup.
func relativeLine(ctx context.Context, d device.Driver, c [4]float64) (from, to device.Point, err error) {
	s, err := d.ScreenSize(ctx)
	if err != nil {
		return device.Point{}, device.Point{}, err
	}
	return device.Point{X: scale(c[0], s.Width), Y: scale(c[1], s.Height)},
		device.Point{X: scale(c[2], s.Width), Y: scale(c[3], s.Height)}, nil
}
