package grbl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Send has one line in flight: the host sends the next once the last is answered, so what
// happens between two lines takes the host's round trip, as long as a loaded host makes it.
// A gesture timed by the millisecond (a double tap's second touch within 300 ms of the
// first, a tap's hold short of a long press) is a Program instead: its lines go out together,
// GRBL's receive buffer holds them, and the controller runs them back to back on its clock.

// Program is lines that go out together (Send). Its methods check their arguments as the
// Client's do; the first error is kept and returned by Send.
type Program struct {
	c     *Client
	lines []string
	bytes int
	err   error
}

// Program starts an empty program.
func (c *Client) Program() *Program { return &Program{c: c} }

func (p *Program) add(op, line string) {
	if p.err != nil {
		return
	}
	if err := checkLine(line); err != nil {
		p.err = &OpError{Port: p.c.port, Op: op, Err: err}
		return
	}
	if p.bytes+len(line)+1 > rxBuffer {
		p.err = &OpError{Port: p.c.port, Op: op, Err: fmt.Errorf("%w: the program's lines pass GRBL's %d-byte receive buffer", ErrBadArgument, rxBuffer),
			Hint: "send a shorter program"}
		return
	}
	p.lines, p.bytes = append(p.lines, line), p.bytes+len(line)+1
}

// Err is the first error of the program's lines so far (Send returns it): a bad argument, or
// lines that pass GRBL's receive buffer together.
func (p *Program) Err() error { return p.err }

// SpindleOn adds M3 S pwm (Client.SpindleOn; its laser-mode check runs at Send).
func (p *Program) SpindleOn(pwm float64) {
	if err := p.c.checkNums("spindle on", pwm); err != nil || pwm < 0 {
		p.keep(err, "spindle on", pwm)
		return
	}
	p.add("spindle on", "M3S"+num(pwm))
}

// SpindleOff adds M5.
func (p *Program) SpindleOff() { p.add("spindle off", "M5") }

// Dwell adds G4 P (Client.Dwell).
func (p *Program) Dwell(d time.Duration) {
	if d < 0 || d > time.Hour {
		p.keep(&OpError{Port: p.c.port, Op: "dwell", Err: fmt.Errorf("%w: dwell %s", ErrBadArgument, d)}, "", 0)
		return
	}
	p.add("dwell", "G4P"+num(d.Seconds()))
}

// SetZ adds a Z move (Client.SetZ).
func (p *Program) SetZ(z, feed float64) {
	const op = "set z"
	if err := p.c.checkNums(op, z); err != nil {
		p.keep(err, "", 0)
	} else if err := p.c.checkFeed(op, feed); err != nil {
		p.keep(err, "", 0)
	} else if err := p.c.checkTravel(op, Vec{Z: z}, "Z"); err != nil {
		p.keep(err, "", 0)
	}
	p.add(op, "G90G21G1Z"+num(z)+"F"+num(feed))
}

// keep keeps err as the program's first error; a nil err is a negative PWM's.
func (p *Program) keep(err error, op string, pwm float64) {
	if p.err != nil {
		return
	}
	if err == nil {
		err = &OpError{Port: p.c.port, Op: op, Err: fmt.Errorf("%w: PWM %v", ErrBadArgument, pwm)}
	}
	p.err = err
}

// Send writes the program's lines at once and returns when each is answered, or with the
// first error (an error:N, an alarm, ctx's end: the lines after it may still run, and the
// next call resynchronises first). It holds the send slot throughout, as Send holds it for
// one line. A program that turns the spindle on is refused in laser mode (ErrLaserMode).
func (p *Program) Send(ctx context.Context) error {
	c := p.c
	if p.err != nil {
		return p.err
	}
	if len(p.lines) == 0 {
		return nil
	}
	first := p.lines[0]
	if p.turnsSpindleOn() {
		laser, err := c.LaserMode(ctx)
		if err != nil {
			return err
		}
		if laser {
			return &OpError{Port: c.port, Op: "spindle on", Err: ErrLaserMode,
				Hint: "the finger fires only while moving in laser mode: set $32=0"}
		}
	}
	k := c.newCall()
	if err := c.stopped(k, first); err != nil {
		return err
	}
	select {
	case c.slot <- struct{}{}:
	case <-ctx.Done():
		return &OpError{Port: c.port, Op: first, Err: fmt.Errorf("waiting to send: %w", ctx.Err())}
	case <-c.dead:
		return c.Err()
	}
	defer func() { <-c.slot }()
	if err := c.resync(ctx, k, first); err != nil {
		return err
	}
	ps, err := c.pushAll(k, p.lines)
	if err != nil {
		return err
	}
	for i, pl := range ps {
		if _, err := c.await(ctx, pl); err != nil {
			c.abandon(ps[i+1:])
			return err
		}
	}
	return nil
}

func (p *Program) turnsSpindleOn() bool {
	for _, l := range p.lines {
		if strings.HasPrefix(l, "M3") {
			return true
		}
	}
	return false
}

// pushAll queues lines as in flight and writes them at once (push, for a program). Each
// line may take the dwells before it and its own as it waits its turn at rest.
func (c *Client) pushAll(k call, lines []string) ([]*pending, error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	if err := c.stoppedLocked(k, lines[0]); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	if c.haltCode != 0 {
		code := c.haltCode
		c.mu.Unlock()
		return nil, &OpError{Port: c.port, Op: lines[0], Err: &Alarm{Code: code},
			Hint: "GRBL halted on this alarm and reads no line until it is reset: call Recover (or Reset, then Unlock)"}
	}
	now, extra := time.Now(), time.Duration(0)
	var b strings.Builder
	ps := make([]*pending, len(lines))
	for i, l := range lines {
		extra += dwellOf(l)
		ps[i] = &pending{line: l, extra: extra, sent: now, done: make(chan struct{})}
		b.WriteString(l + "\n")
	}
	c.fifo = append(c.fifo, ps...)
	c.mu.Unlock()
	if err := c.write([]byte(b.String())); err != nil {
		return nil, err
	}
	c.log.Debug("grbl send program", "port", c.port, "lines", len(lines))
	return ps, nil
}

// abandon marks lines nobody waits for any more (their program failed before them).
func (c *Client) abandon(ps []*pending) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range ps {
		p.gone = true
	}
}

// dwellOf is how long a G4 P line dwells; 0 for any other line.
func dwellOf(line string) time.Duration {
	s, ok := strings.CutPrefix(line, "G4P")
	if !ok {
		return 0
	}
	sec, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return time.Duration(sec * float64(time.Second))
}
