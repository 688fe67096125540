package wdasim

import (
	"time"
)

// touchArgs are the arguments of the coordinate gestures, in points and seconds.
type touchArgs struct {
	X        *float64 `json:"x"`
	Y        *float64 `json:"y"`
	FromX    *float64 `json:"fromX"`
	FromY    *float64 `json:"fromY"`
	ToX      *float64 `json:"toX"`
	ToY      *float64 `json:"toY"`
	Duration *float64 `json:"duration"`
}

// maxHold bounds a gesture's durations in seconds.
const maxHold = 3600

func seconds(d *float64) (time.Duration, error) {
	if d == nil {
		return 0, nil
	}
	if *d < 0 || *d > maxHold {
		return 0, errInvalidArgument("duration is in seconds, from 0 to 3600")
	}
	return time.Duration(*d * float64(time.Second)), nil
}

func xy(x, y *float64, names string) (float64, float64, error) {
	if x == nil || y == nil {
		return 0, 0, errInvalidArgument(names + " are required, in points")
	}
	return *x, *y, nil
}

// tap answers POST /session/:sid/wda/tap {x, y}.
func (s *Server) tap(c *call) (any, error) {
	return s.touch(c, func(a touchArgs) error {
		x, y, err := xy(a.X, a.Y, "x and y")
		if err != nil {
			return err
		}
		pt, err := s.pixel(x, y)
		if err == nil && !s.isScreenOff() { // a dark screen takes no touches
			err = s.phone.Tap(c.ctx, pt, 0)
		}
		return s.touchError(c.ctx, err, x, y)
	})
}

// doubleTap answers POST /session/:sid/wda/doubleTap {x, y}.
func (s *Server) doubleTap(c *call) (any, error) {
	return s.touch(c, func(a touchArgs) error {
		x, y, err := xy(a.X, a.Y, "x and y")
		if err != nil {
			return err
		}
		pt, err := s.pixel(x, y)
		if err == nil && !s.isScreenOff() {
			err = s.phone.DoubleTap(c.ctx, pt)
		}
		return s.touchError(c.ctx, err, x, y)
	})
}

// touchAndHold answers POST /session/:sid/wda/touchAndHold {x, y, duration}.
func (s *Server) touchAndHold(c *call) (any, error) {
	return s.touch(c, func(a touchArgs) error {
		x, y, err := xy(a.X, a.Y, "x and y")
		if err != nil {
			return err
		}
		hold, err := seconds(a.Duration)
		if err != nil {
			return err
		}
		return s.gesture(c, gesture{from: [2]float64{x, y}, to: [2]float64{x, y}, hold: hold})
	})
}

// drag answers POST /session/:sid/wda/dragfromtoforduration {fromX, fromY, toX, toY, duration}:
// XCTest's press for duration, then drag, so the duration is the hold before moving.
func (s *Server) drag(c *call) (any, error) {
	return s.touch(c, func(a touchArgs) error {
		fx, fy, err := xy(a.FromX, a.FromY, "fromX and fromY")
		if err != nil {
			return err
		}
		tx, ty, err := xy(a.ToX, a.ToY, "toX and toY")
		if err != nil {
			return err
		}
		hold, err := seconds(a.Duration)
		if err != nil {
			return err
		}
		return s.gesture(c, gesture{from: [2]float64{fx, fy}, to: [2]float64{tx, ty}, hold: hold, moved: true})
	})
}

func (s *Server) touch(c *call, do func(touchArgs) error) (any, error) {
	var a touchArgs
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	return nil, do(a)
}
