package grbl

import (
	"context"
	"time"
)

// A rig that sits idle learns that its controller froze only from the status reports that
// stop coming. Wall clock alone would also count a loaded host's own lateness: its poll loop
// asks late (a ticker drops the ticks it missed), so a report comes late that was never
// overdue. Ignoring counts the requests too: silence is requests left unanswered, not time.

// Ignoring waits while the controller answers, and fails with an *OpError wrapping a
// *SilentError once it has sent no status report for d and has left at least n status
// requests unanswered meanwhile (Silent is n = 0); nil when ctx ends first. A controller
// halted on a limit is never silent; a dead link fails with its error.
func (c *Client) Ignoring(ctx context.Context, d time.Duration, n int) error {
	poll := time.Duration(float64(time.Second) / c.o.pollHz)
	for {
		w := c.lastWord()
		if w.err != nil {
			return w.err
		}
		if !w.halted && time.Since(w.last) >= d && w.asked >= n {
			return c.silent(w)
		}
		wait := time.Until(w.last.Add(d)) // until d has passed since the last report
		if wait <= 0 {
			wait = poll // d has passed, n requests not yet: look again at the next one
		}
		if w.halted {
			wait = d // halted: no report is due; look again at the next news, or in a while
		}
		due := time.NewTimer(wait)
		select {
		case <-w.next:
		case <-due.C:
		case <-c.dead:
		case <-ctx.Done():
			due.Stop()
			return nil
		}
		due.Stop()
	}
}
