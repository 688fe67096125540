package grbl

import (
	"context"
	"fmt"
	"math"
	"strconv"
)

// maxCoord bounds coordinates and feeds: far beyond any gantry, short enough for a line.
const maxCoord = 100000

// num formats a number as a G-code value: three decimals, no exponent.
func num(f float64) string {
	s := strconv.FormatFloat(f, 'f', 3, 64)
	if s == "-0.000" {
		s = "0.000"
	}
	return s
}

func (c *Client) checkNums(op string, vals ...float64) error {
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxCoord {
			return &OpError{Port: c.port, Op: op, Err: fmt.Errorf("%w: %v is not a coordinate", ErrBadArgument, v)}
		}
	}
	return nil
}

func (c *Client) checkFeed(op string, feed float64) error {
	if err := c.checkNums(op, feed); err != nil {
		return err
	}
	if feed <= 0 {
		return &OpError{Port: c.port, Op: op, Err: fmt.Errorf("%w: feed %v mm/min, want more than 0", ErrBadArgument, feed)}
	}
	return nil
}

// checkTravel refuses a target outside WithTravel's box; axes holds which of x, y, z the
// line moves.
func (c *Client) checkTravel(op string, p Vec, axes string) error {
	t := c.o.travel
	if t == nil {
		return nil
	}
	for _, a := range axes {
		v, lo, hi := p.X, t[0].X, t[1].X
		switch a {
		case 'Y':
			v, lo, hi = p.Y, t[0].Y, t[1].Y
		case 'Z':
			v, lo, hi = p.Z, t[0].Z, t[1].Z
		}
		if v < lo || v > hi {
			return &OpError{Port: c.port, Op: op, Err: fmt.Errorf("%w: %c%s outside %s..%s", ErrOutOfTravel, a, num(v), num(lo), num(hi)),
				Hint: "send targets inside the travel box (WithTravel)"}
		}
	}
	return nil
}

// MoveTo moves the head in a straight line to (x, y) in machine millimetres at feed mm/min
// (G90 G21 G1): GRBL answers once the move is queued; Barrier waits for its end. A target
// outside the soft limits ($20=1) makes GRBL raise ALARM:2 and halt (an *Alarm).
func (c *Client) MoveTo(ctx context.Context, x, y, feed float64) error {
	const op = "move"
	if err := c.checkNums(op, x, y); err != nil {
		return err
	}
	if err := c.checkFeed(op, feed); err != nil {
		return err
	}
	if err := c.checkTravel(op, Vec{X: x, Y: y}, "XY"); err != nil {
		return err
	}
	return c.Send(ctx, "G90G21G1X"+num(x)+"Y"+num(y)+"F"+num(feed))
}

// Rapid moves the head to (x, y) at the machine's maximum rate (G90 G21 G0).
func (c *Client) Rapid(ctx context.Context, x, y float64) error {
	if err := c.checkNums("rapid", x, y); err != nil {
		return err
	}
	if err := c.checkTravel("rapid", Vec{X: x, Y: y}, "XY"); err != nil {
		return err
	}
	return c.Send(ctx, "G90G21G0X"+num(x)+"Y"+num(y))
}

// SetZ moves the Z axis to z at feed mm/min: the finger of a Z-axis rig.
func (c *Client) SetZ(ctx context.Context, z, feed float64) error {
	const op = "set z"
	if err := c.checkNums(op, z); err != nil {
		return err
	}
	if err := c.checkFeed(op, feed); err != nil {
		return err
	}
	if err := c.checkTravel(op, Vec{Z: z}, "Z"); err != nil {
		return err
	}
	return c.Send(ctx, "G90G21G1Z"+num(z)+"F"+num(feed))
}

// SpindleOn turns the spindle on at PWM value pwm (M3 S): on a solenoid rig the finger
// strikes. GRBL waits for the queued moves to finish first, so the strike lands where the
// last move ends. It refuses in laser mode ($32=1), where M3 fires only during moves
// (ErrLaserMode).
func (c *Client) SpindleOn(ctx context.Context, pwm float64) error {
	const op = "spindle on"
	if err := c.checkNums(op, pwm); err != nil {
		return err
	}
	if pwm < 0 {
		return &OpError{Port: c.port, Op: op, Err: fmt.Errorf("%w: PWM %v", ErrBadArgument, pwm)}
	}
	laser, err := c.LaserMode(ctx)
	if err != nil {
		return err
	}
	if laser {
		return &OpError{Port: c.port, Op: op, Err: ErrLaserMode,
			Hint: "the finger fires only while moving in laser mode: set $32=0"}
	}
	return c.Send(ctx, "M3S"+num(pwm))
}

// SpindleOff turns the spindle off (M5): the finger lifts, once the queued moves are done.
func (c *Client) SpindleOff(ctx context.Context) error { return c.Send(ctx, "M5") }

// Unlock clears an alarm lock ($X). After a hard or soft limit GRBL needs a Reset first.
func (c *Client) Unlock(ctx context.Context) error { return c.Send(ctx, "$X") }

// Hold asks for a feed hold (!): the machine decelerates to a stop along its path and
// keeps the position (state Hold:1, then Hold:0); Resume continues. The spindle stays on.
func (c *Client) Hold(ctx context.Context) error { return c.realtime("hold", cmdHold) }

// Resume resumes after a feed hold (~).
func (c *Client) Resume(ctx context.Context) error { return c.realtime("resume", cmdResume) }

// Reset soft-resets the controller (Ctrl-X) and waits for its welcome and first status. A
// reset stops the spindle (the finger lifts), empties the planner and drops the lines in
// flight (they fail with ErrReset). Reset while moving stops the steppers dead: GRBL raises
// ALARM:3 and comes up in alarm state (the returned Status says so; Unlock clears it). Feed
// hold first, as Stop does, to keep the position.
func (c *Client) Reset(ctx context.Context) (Status, error) {
	welcome := c.welcomes()
	if err := c.Err(); err != nil {
		return Status{}, err
	}
	if err := c.softReset(); err != nil {
		return Status{}, err
	}
	c.log.Debug("grbl realtime", "port", c.port, "op", "reset")
	if err := c.awaitWelcome(ctx, "reset", welcome, false); err != nil {
		return Status{}, err
	}
	return c.WaitFor(ctx, func(s Status) bool { return s.State != StateUnknown })
}

// Stop halts the machine and makes sure the finger is up, whatever it was doing: a feed
// hold (the machine decelerates and keeps its position), a soft reset once it is at rest
// (GRBL's reset stops the spindle and empties the planner; the hold keeps it out of alarm
// state), then M5 for good measure unless GRBL came up locked (there G-code is refused, and
// the reset has already stopped the spindle). Give it a context of its own: a cancelled
// gesture's context would stop Stop too.
//
// Calls that overlap a Stop (begun before it and not yet sent, or begun while it runs) send
// nothing and fail with ErrStopped, so that a gesture running in another goroutine cannot
// move the machine again behind the reset; a call begun after Stop returned is sent as usual.
// A Stop called while another runs (a failed gesture's and an emergency stop's) joins it and
// returns what it returns: one hold and one reset, not a second reset cutting the first
// Stop's M5 short.
//
// A Z-axis finger stays where the reset left it: lift it with SetZ (after Unlock when the
// Status returned is in alarm state).
func (c *Client) Stop(ctx context.Context) (Status, error) {
	c.mu.Lock()
	c.stops++
	c.stopping++
	own := call{stops: c.stops, own: true}
	run, joined := c.stopRun, c.stopRun != nil
	if !joined {
		run = &stopRun{done: make(chan struct{})}
		c.stopRun = run
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.stopping--
		c.mu.Unlock()
	}()
	if joined {
		return run.wait(ctx, c.port)
	}
	run.st, run.err = c.stop(ctx, own)
	c.mu.Lock()
	c.stopRun = nil
	c.mu.Unlock()
	close(run.done)
	return run.st, run.err
}

// stopRun is a Stop under way, which Stops called meanwhile wait for.
type stopRun struct {
	done chan struct{} // closed once st and err are set
	st   Status
	err  error
}

// wait returns what the Stop under way returned, unless ctx ends first.
func (r *stopRun) wait(ctx context.Context, port string) (Status, error) {
	select {
	case <-r.done:
		return r.st, r.err
	case <-ctx.Done():
		return Status{}, &OpError{Port: port, Op: "stop", Err: fmt.Errorf("waiting for the stop under way: %w", ctx.Err()),
			Hint: "the other stop goes on: check that the finger is up"}
	}
}

// stop is Stop's hold, reset and M5, its lines sent as own.
func (c *Client) stop(ctx context.Context, own call) (Status, error) {
	if err := c.realtime("hold", cmdHold); err != nil {
		return Status{}, err
	}
	c.mu.Lock()
	halted := c.haltCode != 0
	c.mu.Unlock()
	if !halted {
		hctx, cancel := context.WithTimeout(ctx, c.o.holdTimeout)
		_, err := c.WaitFor(hctx, func(s Status) bool {
			return (s.State == StateHold && s.Sub == 0) || s.State == StateIdle || s.State == StateAlarm ||
				s.State == StateDoor || s.State == StateSleep
		})
		cancel()
		if err != nil && ctx.Err() == nil && c.Err() == nil {
			c.log.Warn("grbl feed hold did not complete, resetting anyway", "port", c.port, "err", err)
		}
	}
	st, err := c.Reset(ctx)
	if err != nil {
		return st, err
	}
	if st.State == StateAlarm {
		return st, nil
	}
	if _, err := c.exchangeAs(ctx, own, "M5", 0); err != nil {
		return c.Status(), err
	}
	return c.Status(), nil
}

// Recover brings the controller out of an alarm: a Reset when GRBL halted until one (hard
// or soft limit), then Unlock ($X) when it is locked. It does not home: after ALARM:1 or 3
// the position is likely lost and the rig needs re-homing or re-calibration.
func (c *Client) Recover(ctx context.Context) (Status, error) {
	c.mu.Lock()
	halted := c.haltCode != 0
	c.mu.Unlock()
	var st Status
	var err error
	if halted {
		st, err = c.Reset(ctx)
	} else {
		st, err = c.WaitFor(ctx, func(s Status) bool { return s.State != StateUnknown })
	}
	if err != nil {
		return st, err
	}
	if st.State != StateAlarm {
		return st, nil
	}
	if err := c.Unlock(ctx); err != nil {
		return c.Status(), err
	}
	return c.WaitFor(ctx, func(s Status) bool { return s.State != StateAlarm && s.State != StateUnknown })
}
