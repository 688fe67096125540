package wdasim

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"strings"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// pixel returns the phone's pixel under the point (x, y). Whether it is on the screen is the
// phone's to say; a point too far for an int is refused here, as the phone would.
func (s *Server) pixel(x, y float64) (device.Point, error) {
	sc := float64(s.scale)
	px, py := math.Floor(x*sc), math.Floor(y*sc)
	const far = 1 << 30 // beyond any screen, and within int
	if !(px > -far && px < far && py > -far && py < far) {
		return device.Point{}, sim.ErrOutOfScreen
	}
	return device.Point{X: int(px), Y: int(py)}, nil
}

// touchError explains a refused touch in points, the unit the client used.
func (s *Server) touchError(ctx context.Context, err error, pts ...float64) error { // pts: x, y pairs
	if !errors.Is(err, sim.ErrOutOfScreen) {
		return err
	}
	sz, serr := s.screenSize(ctx)
	if serr != nil {
		return errInvalidCoordinates(err.Error())
	}
	w, h := float64(sz.Width)/float64(s.scale), float64(sz.Height)/float64(s.scale)
	var at []string
	for i := 0; i+1 < len(pts); i += 2 {
		at = append(at, fmt.Sprintf("(%g, %g)", pts[i], pts[i+1]))
	}
	return errInvalidCoordinates(fmt.Sprintf("%s: not on the %gx%g-point screen; x must be 0 to under %g, y 0 to under %g",
		strings.Join(at, " to "), w, h, w, h))
}

// frame converts pixel bounds to a frame in whole points. It rounds inwards, so that every point
// of the frame is over a pixel of the element and a tap anywhere in it, the centre above all,
// lands on the element; an element narrower than a point is rounded outwards instead.
func (s *Server) frame(r image.Rectangle) (x, y, w, h int) {
	x0, x1 := inner(r.Min.X, r.Max.X, s.scale)
	y0, y1 := inner(r.Min.Y, r.Max.Y, s.scale)
	return x0, y0, x1 - x0, y1 - y0
}

func inner(lo, hi, sc int) (int, int) {
	a, b := ceilDiv(lo, sc), floorDiv(hi, sc)
	if b <= a {
		return floorDiv(lo, sc), max(ceilDiv(hi, sc), floorDiv(lo, sc))
	}
	return a, b
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }
