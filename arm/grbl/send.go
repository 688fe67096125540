package grbl

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Send sends one line and waits for its ok: the simple send-response protocol, one line in
// flight. (GRBL's character-counting protocol, which keeps its 128-byte buffer full, may
// come later: the answers are matched to lines in order already.)
//
// GRBL answers a motion line as soon as the move is queued in its planner, not when it is
// done: Barrier waits for that. An error:N answer is an *Error (errors.As); an alarm while
// the line waits is an *Alarm. When ctx ends first the line may still run: the next call
// first resynchronises, so that the late answer is not taken for its own.
func (c *Client) Send(ctx context.Context, line string) error {
	_, err := c.exchange(ctx, line, 0)
	return err
}

// Command sends one line and returns what the controller printed before its ok: $$ gives
// the settings, $G the parser state, $I the build info.
func (c *Client) Command(ctx context.Context, line string) ([]string, error) {
	return c.exchange(ctx, line, 0)
}

// maxLineChars is what GRBL's line buffer keeps of a line: 79 characters, spaces and
// comments left out. A longer line is refused with error:11 and does not run.
const maxLineChars = 79

// checkLine refuses what cannot be one line GRBL reads whole.
func checkLine(line string) error {
	if len(line)+1 > rxBuffer {
		return fmt.Errorf("%w: %d bytes, GRBL's receive buffer holds %d with the newline", ErrBadArgument, len(line), rxBuffer)
	}
	kept, paren, semi := 0, false, false
	for i := 0; i < len(line); i++ {
		switch b := line[i]; {
		case b == '\n' || b == '\r':
			return fmt.Errorf("%w: a line holds no newline", ErrBadArgument)
		case b == cmdStatus || b == cmdHold || b == cmdResume || b < 0x20 || b >= 0x7f:
			return fmt.Errorf("%w: byte %#x is a realtime command or not printable", ErrBadArgument, b)
		case semi:
		case paren:
			paren = b != ')'
		case b == '(':
			paren = true
		case b == ';':
			semi = true
		case b != ' ':
			kept++
		}
	}
	if kept > maxLineChars {
		return fmt.Errorf("%w: %d characters, GRBL keeps %d a line (spaces and comments aside)", ErrBadArgument, kept, maxLineChars)
	}
	return nil
}

// call is one call's claim to send: the Stop generation it began in, and whether it is
// Stop's own line.
type call struct {
	stops uint64
	own   bool
}

func (c *Client) newCall() call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return call{stops: c.stops}
}

func (c *Client) exchange(ctx context.Context, line string, extra time.Duration) ([]string, error) {
	return c.exchangeAs(ctx, c.newCall(), line, extra)
}

func (c *Client) exchangeAs(ctx context.Context, k call, line string, extra time.Duration) ([]string, error) {
	if err := checkLine(line); err != nil {
		return nil, &OpError{Port: c.port, Op: line, Err: err}
	}
	if err := c.stopped(k, line); err != nil {
		return nil, err // at once: a call during Stop does not wait for the slot
	}
	select {
	case c.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, &OpError{Port: c.port, Op: line, Err: fmt.Errorf("waiting to send: %w", ctx.Err())}
	case <-c.dead:
		return nil, c.Err()
	}
	defer func() { <-c.slot }()
	if err := c.resync(ctx, k, line); err != nil {
		return nil, err
	}
	if strings.HasPrefix(line, "$32=") {
		defer c.forgetLaser() // whatever the answer: read $32 again next time
	}
	p, err := c.push(k, line, extra)
	if err != nil {
		return nil, err
	}
	return c.await(ctx, p)
}

func (c *Client) forgetLaser() {
	c.mu.Lock()
	c.laser = nil
	c.mu.Unlock()
}

// stopped fails a call that overlapped a Stop.
func (c *Client) stopped(k call, line string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stoppedLocked(k, line)
}

func (c *Client) stoppedLocked(k call, line string) error {
	if k.own || (c.stopping == 0 && c.stops == k.stops) {
		return nil
	}
	return &OpError{Port: c.port, Op: line, Err: ErrStopped,
		Hint: "Stop was called while this call was under way: the line was not sent; start the gesture again"}
}

// push queues a line as in flight and writes it. A call that overlapped a Stop (begun
// before it, or while it runs) sends nothing: the gesture it belongs to is being stopped.
func (c *Client) push(k call, line string, extra time.Duration) (*pending, error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	if err := c.stoppedLocked(k, line); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	if c.haltCode != 0 {
		code := c.haltCode
		c.mu.Unlock()
		return nil, &OpError{Port: c.port, Op: line, Err: &Alarm{Code: code},
			Hint: "GRBL halted on this alarm and reads no line until it is reset: call Recover (or Reset, then Unlock)"}
	}
	p := &pending{line: line, sync: line == "$G", extra: extra, sent: time.Now(), done: make(chan struct{})}
	c.fifo = append(c.fifo, p)
	c.mu.Unlock()
	if err := c.write([]byte(line + "\n")); err != nil {
		return nil, err
	}
	c.log.Debug("grbl send", "port", c.port, "line", line)
	return p, nil
}

// await waits for a line's answer.
func (c *Client) await(ctx context.Context, p *pending) ([]string, error) {
	select {
	case <-p.done:
		return p.lines, p.err
	case <-ctx.Done():
		c.mu.Lock()
		p.gone = true
		c.mu.Unlock()
		return nil, &OpError{Port: c.port, Op: p.line, Err: fmt.Errorf("waiting for the answer: %w", ctx.Err()),
			Hint: "the line may still run; the next call resynchronises first"}
	}
}

// resync makes sure no line is in flight before a new one goes: lines whose caller gave up
// may still be answered, and an answer may have been lost. It sends $G and waits for its
// [GC:…] and ok: what came before belonged to the old lines, or never came.
func (c *Client) resync(ctx context.Context, k call, line string) error {
	for {
		c.mu.Lock()
		if c.err != nil {
			c.mu.Unlock()
			return c.err
		}
		if len(c.fifo) == 0 || c.haltCode != 0 {
			c.mu.Unlock()
			return nil // push fails a halted controller's line
		}
		if len(c.fifo) >= maxOrphans {
			n := len(c.fifo)
			c.mu.Unlock()
			return &OpError{Port: c.port, Op: line, Err: fmt.Errorf("%w: %d lines unanswered", ErrNoReply, n),
				Hint: "the controller answers no line: Reset it"}
		}
		c.mu.Unlock()
		p, err := c.push(k, "$G", 0)
		if err != nil {
			return err
		}
		c.log.Info("grbl resynchronising", "port", c.port)
		if _, err := c.await(ctx, p); err != nil && ctx.Err() != nil {
			return err
		}
	}
}

// Dwell pauses the machine for d once everything before it has run (G4 P, in seconds).
func (c *Client) Dwell(ctx context.Context, d time.Duration) error {
	if d < 0 || d > time.Hour {
		return &OpError{Port: c.port, Op: "dwell", Err: fmt.Errorf("%w: dwell %s", ErrBadArgument, d)}
	}
	_, err := c.exchange(ctx, "G4P"+num(d.Seconds()), d)
	return err
}

// Barrier returns once the machine has executed everything sent before it: it sends a
// 10 ms dwell (G4 P0.01), which GRBL answers only after its planner has drained. This is
// how the end of a gesture is known; Status may still show the last report before it.
func (c *Client) Barrier(ctx context.Context) error {
	return c.Dwell(ctx, 10*time.Millisecond)
}

// Settings reads the settings ($$) as numbers by setting number ($110 is 110).
// GRBL answers $ commands only at rest (error:8 otherwise), so it waits for the queued moves
// first, unless the controller is in alarm, where it runs no G-code but answers $$.
func (c *Client) Settings(ctx context.Context) (map[int]float64, error) {
	if c.Status().State != StateAlarm {
		if err := c.Barrier(ctx); err != nil {
			return nil, err
		}
	}
	lines, err := c.Command(ctx, "$$")
	if err != nil {
		return nil, err
	}
	out := make(map[int]float64, len(lines))
	for _, l := range lines {
		n, v, ok := parseSetting(l)
		if ok {
			out[n] = v
		}
	}
	if v, ok := out[32]; ok {
		laser := v != 0
		c.mu.Lock()
		c.laser = &laser
		c.mu.Unlock()
	}
	return out, nil
}

// parseSetting parses "$110=500.000"; FluidNC's named settings ($Config/Filename=…) are not
// numbers and are skipped.
func parseSetting(l string) (int, float64, bool) {
	k, v, ok := strings.Cut(l, "=")
	if !ok || len(k) < 2 || k[0] != '$' {
		return 0, 0, false
	}
	n, err := parseInt(k[1:])
	if err != nil {
		return 0, 0, false
	}
	f, err := parseFloat(strings.TrimSpace(v))
	if err != nil {
		return 0, 0, false
	}
	return n, f, true
}

func parseInt(s string) (int, error) {
	n, err := parseInts(s, 1)
	if err != nil {
		return 0, err
	}
	return n[0], nil
}

// LaserMode reports whether laser mode ($32) is on: then M3 fires only while moving, and the
// spindle finger refuses to strike. It reads $$ once and keeps the answer.
func (c *Client) LaserMode(ctx context.Context) (bool, error) {
	c.mu.Lock()
	l := c.laser
	c.mu.Unlock()
	if l != nil {
		return *l, nil
	}
	s, err := c.Settings(ctx)
	if err != nil {
		return false, err
	}
	v, ok := s[32]
	if !ok {
		return false, &OpError{Port: c.port, Op: "$$", Err: fmt.Errorf("no $32 (laser mode) in the settings"),
			Hint: "a controller without $32 may not be GRBL 1.1"}
	}
	return v != 0, nil
}
