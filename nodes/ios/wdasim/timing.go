package wdasim

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/sim"
)

// take waits d, the time a gesture lasts on a real iPhone, where XCTest answers only once the
// finger has lifted; so a client's deadlines and aborts meet a gesture as long as the one it
// asked for. It does not end when the client goes away: the finger finishes, and the Server's
// turn, held meanwhile, keeps the next request waiting until it has.
func take(d time.Duration) {
	if d > 0 {
		time.Sleep(d) // the gesture's own time on the phone, not a wait for something else
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
