package grbl

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A controller can stop answering while its link stays up: frozen (as kill -STOP leaves a
// process), a hung board. The link counts as lost only after the link timeout, which a rig may
// set long (a minute); meanwhile every line waits for its deadline, and a Stop for its welcome.
// Answering tells a silent controller from a slow one, so that a caller need not wait that long.

// ErrSilent: the controller answers nothing, status requests included, though its link is up
// (Answering). A *SilentError is it.
var ErrSilent = errors.New("the controller stopped answering")

// SilentError says how long the controller has been silent, and which line waits for its answer.
type SilentError struct {
	Since time.Duration // since its last status report (or welcome)
	Line  string        // the oldest line awaiting its answer; "" when none
}

func (e *SilentError) Error() string {
	msg := fmt.Sprintf("%v: no status report for %s", ErrSilent, e.Since.Round(100*time.Millisecond))
	if e.Line != "" {
		msg += ", and no answer to " + e.Line
	}
	return msg
}

func (e *SilentError) Is(target error) bool { return target == ErrSilent }

// LastReport is when the controller last sent a status report (or its welcome).
func (c *Client) LastReport() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastReport
}

// Answering returns nil once the controller has sent a status report within the last d: at
// once when one came that recently, else when the next one comes (a loaded host's late report
// is no silence), until ctx ends. A controller halted on a limit, which answers no '?' until
// it is reset, counts as answering. When ctx ends first it fails with an *OpError wrapping a
// *SilentError; a dead link fails with its error.
func (c *Client) Answering(ctx context.Context, d time.Duration) error {
	for {
		w := c.lastWord()
		switch {
		case w.err != nil:
			return w.err
		case w.halted || time.Since(w.last) <= d:
			return nil
		}
		select {
		case <-w.next:
		case <-c.dead:
		case <-ctx.Done():
			return c.silent(w)
		}
	}
}

// Silent waits while the controller answers, and fails with an *OpError wrapping a
// *SilentError once it has sent no status report for d (at once if it has not for that long
// already); nil when ctx ends first. A controller halted on a limit is never silent; a dead
// link fails with its error.
func (c *Client) Silent(ctx context.Context, d time.Duration) error {
	return c.Ignoring(ctx, d, 0)
}

// word is what Answering and Silent look at.
type word struct {
	err    error           // the link's, if it is dead
	halted bool            // halted on a limit, answering no '?' until a reset
	last   time.Time       // the last status report (or welcome)
	asked  int             // status requests sent since
	line   string          // the oldest line awaiting its answer
	next   <-chan struct{} // closed by the next status update
}

func (c *Client) lastWord() word {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := word{err: c.err, halted: c.haltCode != 0, last: c.lastReport, asked: c.asked, next: c.stCh}
	if len(c.fifo) > 0 {
		w.line = c.fifo[0].line
	}
	return w
}

// silent is the error of a controller silent since w.last.
func (c *Client) silent(w word) error {
	return &OpError{Port: c.port, Op: "status", Err: &SilentError{Since: time.Since(w.last), Line: w.line}}
}
