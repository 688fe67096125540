package wdasim

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/sim"
)

// take waits d, the time a gesture lasts on a real iPhone, where XCTest answers only once the
// finger has lifted; so a client's deadlines and aborts meet a gesture as long as the one it
// asked for. It ends early with ctx's error when the request does (the client went away). No
// lock is held: other requests are answered meanwhile.
func take(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// onScreen refuses points (x, y pairs) off the screen before a gesture takes its time, as
// WebDriverAgent checks them before it touches.
func (s *Server) onScreen(ctx context.Context, pts ...[2]float64) error {
	sz, err := s.screenSize(ctx)
	if err != nil {
		return err
	}
	for _, pt := range pts {
		p, err := s.pixel(pt[0], pt[1])
		if err != nil {
			return err
		}
		if p.X < 0 || p.Y < 0 || p.X >= sz.Width || p.Y >= sz.Height {
			return sim.ErrOutOfScreen
		}
	}
	return nil
}
