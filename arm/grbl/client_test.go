package grbl_test

import (
	"context"
	"errors"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/grbl/grblsim"
)

func TestDialTCP(t *testing.T) {
	clock := newFakeClock()
	s := newSim(t, clock)
	addr, err := s.ServeTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, err := grbl.DialTCP(ctxT(t), addr, testOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The welcome came at once: Open neither waited for half the welcome timeout nor reset.
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("open took %s: the welcome was missed", d)
	}
	if c.Port() != addr {
		t.Errorf("port %q, want %q", c.Port(), addr)
	}
	if st := c.Status(); st.State != grbl.StateIdle || st.At.IsZero() {
		t.Errorf("status after open %+v, want Idle with a report", st)
	}
	if err := c.Send(ctxT(t), "G21"); err != nil {
		t.Fatal(err)
	}
	if c.Err() != nil {
		t.Fatalf("Err %v on a live client", c.Err())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(ctxT(t), "G21"); !errors.Is(err, grbl.ErrClosed) {
		t.Fatalf("send after close: %v, want ErrClosed", err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
}

func TestDialTCPRefused(t *testing.T) {
	// A port nobody listens on: the listener is closed before the dial.
	s := newSim(t, newFakeClock())
	addr, err := s.ServeTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	_, err = grbl.DialTCP(ctxT(t), addr)
	var op *grbl.OpError
	if !errors.As(err, &op) || op.Op != "open" || op.Hint == "" {
		t.Fatalf("dial a closed port: %v, want an open OpError with a hint", err)
	}
}

func TestDialSerialPTY(t *testing.T) {
	// A missed welcome would hold Open for half of this minute before it nudged the
	// controller with a reset; the welcome waiting in the pty comes at once.
	start := time.Now()
	r, path := ptyRig(t, grbl.WithWelcomeTimeout(time.Minute))
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("open took %s: the welcome waiting in the pty was missed", d)
	}
	s, c := r.sim, r.c
	if c.Port() != path {
		t.Errorf("port %q, want %q", c.Port(), path)
	}
	ctx := ctxT(t)
	if err := c.Rapid(ctx, 10, 20); err != nil {
		t.Fatal(err)
	}
	r.must("barrier", func() error { return c.Barrier(ctx) })
	if p := s.Position(); p != (grbl.Vec{X: 10, Y: 20}) {
		t.Fatalf("at %v after the barrier, want X10 Y20", p)
	}
	st, err := c.WaitIdle(ctx)
	if err != nil || st.MPos != (grbl.Vec{X: 10, Y: 20}) {
		t.Fatalf("status %+v, %v: want idle at X10 Y20", st, err)
	}

	if _, err := grbl.DialSerial(ctx, path, 0); !errors.Is(err, grbl.ErrBadArgument) {
		t.Errorf("baud 0: %v, want ErrBadArgument", err)
	}
	var op *grbl.OpError
	if _, err := grbl.DialSerial(ctx, "/dev/no-such-port", 115200); !errors.As(err, &op) || op.Hint == "" {
		t.Errorf("a missing port: %v, want an OpError with a hint", err)
	}
}

func TestOpenNoWelcome(t *testing.T) {
	// A stalled controller greets nobody: Open resets it once, then gives up.
	conn := dialSilent(t)
	start := time.Now()
	_, err := grbl.Open(ctxT(t), conn, grbl.WithName("mute"), grbl.WithWelcomeTimeout(300*time.Millisecond))
	if !errors.Is(err, grbl.ErrNoWelcome) || !strings.Contains(err.Error(), "baud rate") {
		t.Fatalf("open a mute controller: %v, want ErrNoWelcome with a hint", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("gave up after %s, before the welcome timeout", d)
	}
	if got := conn.count(0x18); got != 1 {
		t.Errorf("%d soft resets sent, want 1 (the nudge at half the timeout)", got)
	}
}

func TestOpenBadOptions(t *testing.T) {
	s := newSim(t, newFakeClock())
	addr, err := s.ServeTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string][]grbl.Option{
		"poll 4 Hz":        {grbl.WithPollRate(4)},
		"poll 11 Hz":       {grbl.WithPollRate(11)},
		"link timeout":     {grbl.WithLinkTimeout(100 * time.Millisecond)},
		"reply timeout":    {grbl.WithReplyTimeout(0)},
		"travel inverted":  {grbl.WithTravel(grbl.Vec{X: 10}, grbl.Vec{})},
		"travel NaN":       {grbl.WithTravel(grbl.Vec{}, grbl.Vec{X: nan()})},
		"hold timeout":     {grbl.WithHoldTimeout(-1)},
		"welcome timeout0": {grbl.WithWelcomeTimeout(0)},
	} {
		_, err := grbl.DialTCP(ctxT(t), addr, o...)
		if !errors.Is(err, grbl.ErrBadArgument) {
			t.Errorf("%s: %v, want ErrBadArgument", name, err)
		}
	}
}

func TestStatusPolling(t *testing.T) {
	r := newRig(t, nil, grbl.WithPollRate(8))
	// The client asks by itself, at 8 Hz: count the '?' over a second and a half.
	n0, t0 := r.tap.count('?'), time.Now()
	waitFor(t, "1.5 s", func() bool { return time.Since(t0) >= 1500*time.Millisecond })
	n1, t1 := r.tap.count('?'), time.Now()
	if hz := float64(n1-n0) / t1.Sub(t0).Seconds(); hz < 5 || hz > 10 {
		t.Errorf("polled at %.1f Hz, want 5 to 10", hz)
	}
	// Status follows the machine without being asked: a move shows as Run, mid-way, then Idle
	// at the target.
	ctx := ctxT(t)
	if err := r.c.Rapid(ctx, 100, 0); err != nil {
		t.Fatal(err)
	}
	r.tick(500 * time.Millisecond) // 100 mm at 100 mm/s, accelerating at 500 mm/s²
	mid := r.sim.Position()
	waitFor(t, "a fresh status mid-move", func() bool {
		st := r.c.Status()
		return st.State == grbl.StateRun && near(st.MPos, mid)
	})
	if mid.X <= 0 || mid.X >= 100 {
		t.Fatalf("mid-move at %v", mid)
	}
	r.tick(2 * time.Second)
	waitFor(t, "Idle at X100", func() bool {
		st := r.c.Status()
		return st.State == grbl.StateIdle && st.MPos == grbl.Vec{X: 100} && time.Since(st.At) < time.Second
	})
	// WaitFor takes only reports after the call.
	before := r.c.Status().At
	st, err := r.c.WaitFor(ctx, func(grbl.Status) bool { return true })
	if err != nil || !st.At.After(before) {
		t.Fatalf("WaitFor returned %v (%v), not newer than %v", st.At, err, before)
	}
}

func TestLineEndingsAndFormat(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	r.must("move", func() error { return r.c.MoveTo(ctx, 1.5, -0.0001, 1200) })
	r.must("z", func() error { return r.c.SetZ(ctx, -2, 300) })
	r.must("dwell", func() error { return r.c.Dwell(ctx, 250*time.Millisecond) })
	out := string(r.tap.Bytes())
	if strings.Contains(out, "\r") {
		t.Errorf("a CR was sent: %q", out)
	}
	for _, want := range []string{"G90G21G1X1.500Y0.000F1200.000\n", "G90G21G1Z-2.000F300.000\n", "G4P0.250\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("sent %q, want it to hold %q", out, want)
		}
	}
}

func TestOneLineInFlight(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	// A 30 s dwell: its ok comes only when the machine's clock has moved 30 s.
	dwell := goErr(func() error { return r.c.Dwell(ctx, 30*time.Second) })
	waitFor(t, "the dwell to reach the machine", func() bool { return r.lines() == 1 })
	second := goErr(func() error { return r.c.Send(ctx, "G21") })
	third := goErr(func() error { return r.c.Send(ctx, "G90") })
	// Let the client poll three times: the lines would have gone by then.
	n := r.tap.count('?')
	waitFor(t, "three polls", func() bool { return r.tap.count('?') >= n+3 })
	if out := string(r.tap.Bytes()); strings.Contains(out, "G21") || strings.Contains(out, "G90\n") {
		t.Fatalf("a line was sent while the dwell waited for its ok: %q", out)
	}
	if dwell.finished() || second.finished() || third.finished() {
		t.Fatal("a call returned before the dwell's ok")
	}
	r.tick(30 * time.Second)
	for _, res := range []*result[struct{}]{dwell, second, third} {
		if _, err := pump(r, res); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.lines(); got != 3 {
		t.Fatalf("the machine read %d lines, want 3", got)
	}
}

func TestErrorDecoded(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	for _, c := range []struct {
		line string
		code int
		text string
	}{
		{"G1X1", 22, "Feed rate has not yet been set or is undefined."}, // no F yet
		{"G2X1Y1I1", 20, "Unsupported or invalid g-code command found in block."},
		{"$999=1", 3, "Grbl '$' system command was not recognized or supported."},
		{"G0X1X2", 25, "Repeated g-code word found in block."},
	} {
		err := r.c.Send(ctx, c.line)
		var e *grbl.Error
		if !errors.As(err, &e) || e.Code != c.code {
			t.Errorf("%s: %v, want error:%d", c.line, err, c.code)
			continue
		}
		var op *grbl.OpError
		if !errors.As(err, &op) || op.Op != c.line || op.Port != "sim" {
			t.Errorf("%s: %#v, want an OpError naming the line and the port", c.line, op)
		}
		msg := err.Error()
		if !strings.Contains(msg, c.text) || !strings.Contains(msg, "(") {
			t.Errorf("%s: %q, want GRBL's text %q and a hint", c.line, msg, c.text)
		}
	}
	// The client stays usable after refusals.
	r.must("G21", func() error { return r.c.Send(ctx, "G21") })
	lines, err := r.c.Command(ctx, "$G")
	if err != nil || len(lines) != 1 || !strings.HasPrefix(lines[0], "[GC:") {
		t.Fatalf("$G: %q, %v", lines, err)
	}
}

func TestCheckLine(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	ok79 := "G4 P" + strings.Repeat("0", 75) + " (a comment)" // 79 kept, spaces and comments aside
	if err := r.run(func() error { return r.c.Send(ctx, ok79) }); err != nil {
		t.Fatalf("a line of 79 characters: %v", err)
	}
	n := r.lines()
	for name, line := range map[string]string{
		"80 characters":    "G4P" + strings.Repeat("0", 77),
		"128 bytes":        "G4P0" + strings.Repeat(" ", 124),
		"status byte":      "G0X1?",
		"feed hold byte":   "G0X1!",
		"resume byte":      "G0~X1",
		"soft reset":       "G0X1\x18",
		"newline":          "G0X1\nG0X2",
		"carriage return":  "G0X1\r",
		"extended command": "G0X1\x85",
		"tab":              "G0\tX1",
	} {
		err := r.c.Send(ctx, line)
		if !errors.Is(err, grbl.ErrBadArgument) {
			t.Errorf("%s: %v, want ErrBadArgument", name, err)
		}
	}
	// A comment may hold anything printable but the realtime bytes; it does not count.
	long := "G21 ;" + strings.Repeat("c", 100)
	if err := r.c.Send(ctx, long); err != nil {
		t.Errorf("a line with a long comment: %v", err)
	}
	if got := r.lines(); got != n+1 {
		t.Errorf("the machine read %d lines, want %d: a refused line was sent", got, n+1)
	}
	if snap := r.sim.Snapshot(); snap.State != "Idle" {
		t.Errorf("state %s: a realtime byte inside a line reached the machine", snap.State)
	}
}

func TestBadNumbers(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	for name, err := range map[string]error{
		"NaN x":          r.c.MoveTo(ctx, nan(), 0, 100),
		"Inf y":          r.c.Rapid(ctx, 0, inf()),
		"zero feed":      r.c.MoveTo(ctx, 1, 1, 0),
		"negative feed":  r.c.SetZ(ctx, 1, -5),
		"huge":           r.c.Rapid(ctx, 1e9, 0),
		"negative pwm":   r.c.SpindleOn(ctx, -1),
		"negative dwell": r.c.Dwell(ctx, -time.Second),
	} {
		if !errors.Is(err, grbl.ErrBadArgument) {
			t.Errorf("%s: %v, want ErrBadArgument", name, err)
		}
	}
	if got := r.lines(); got != 0 {
		t.Errorf("the machine read %d lines, want none", got)
	}
}

func TestWithTravel(t *testing.T) {
	r := newRig(t, nil, grbl.WithTravel(grbl.Vec{X: 0, Y: 0, Z: -10}, grbl.Vec{X: 100, Y: 150, Z: 0}))
	ctx := ctxT(t)
	for name, err := range map[string]error{
		"x over":  r.c.Rapid(ctx, 100.001, 10),
		"y under": r.c.MoveTo(ctx, 10, -0.5, 1000),
		"z over":  r.c.SetZ(ctx, 1, 100),
		"z under": r.c.SetZ(ctx, -10.5, 100),
	} {
		var op *grbl.OpError
		if !errors.Is(err, grbl.ErrOutOfTravel) || !errors.As(err, &op) || op.Hint == "" {
			t.Errorf("%s: %v, want ErrOutOfTravel with a hint", name, err)
		}
	}
	if got := r.lines(); got != 0 {
		t.Fatalf("the machine read %d lines: an out-of-travel target was sent", got)
	}
	// The corners are inside.
	r.must("corner", func() error { return r.c.Rapid(ctx, 100, 150) })
	r.must("z", func() error { return r.c.SetZ(ctx, -10, 500) })
	r.must("barrier", func() error { return r.c.Barrier(ctx) })
	if p := r.sim.Position(); p != (grbl.Vec{X: 100, Y: 150, Z: -10}) {
		t.Fatalf("at %v, want the far corner", p)
	}
}

func TestContextCancel(t *testing.T) {
	r := newRig(t, nil)
	ctx, cancel := context.WithCancel(ctxT(t))
	dwell := goErr(func() error { return r.c.Dwell(ctx, 30*time.Second) })
	waitFor(t, "the dwell to reach the machine", func() bool { return r.lines() == 1 })
	// A second line waiting for the slot gives up with its own context.
	ctx2, cancel2 := context.WithCancel(ctxT(t))
	queued := goErr(func() error { return r.c.Send(ctx2, "G21") })
	cancel2()
	_ = queued.wait(t)
	if !errors.Is(queued.err, context.Canceled) || !strings.Contains(queued.err.Error(), "waiting to send") {
		t.Fatalf("a queued line cancelled: %v", queued.err)
	}
	cancel()
	_ = dwell.wait(t)
	var op *grbl.OpError
	if !errors.Is(dwell.err, context.Canceled) || !errors.As(dwell.err, &op) || op.Hint == "" {
		t.Fatalf("the dwell cancelled: %v, want context.Canceled with a hint", dwell.err)
	}
	// The machine still dwells; the next line waits for it and the resynchronisation, and
	// gets its own answer, not the dwell's late ok.
	next := goErr(func() error { return r.c.Send(ctxT(t), "G1X5") }) // no feed yet: error:22
	n := r.tap.count('?')
	waitFor(t, "two polls", func() bool { return r.tap.count('?') >= n+2 })
	if next.finished() {
		t.Fatalf("the next line returned while the machine dwelt: %v", next.err)
	}
	r.tick(30 * time.Second)
	_, err := pump(r, next)
	var e *grbl.Error
	if !errors.As(err, &e) || e.Code != 22 {
		t.Fatalf("the line after a cancelled one: %v, want its own error:22", err)
	}
	r.must("G21", func() error { return r.c.Send(ctxT(t), "G21") })
}

func TestSubscribe(t *testing.T) {
	r := newRig(t, nil)
	ev, stop := r.c.Subscribe(64)
	ctx := ctxT(t)
	// The move is sent without running the machine (GRBL answers it at once): it stays under
	// way, in Run, until the barrier runs it. Run through pump, a late ok would let the move
	// end before any poll saw it.
	if err := r.c.Rapid(ctx, 20, 0); err != nil {
		t.Fatal(err)
	}
	seen := map[grbl.State]bool{}
	events := func(want grbl.State) func() bool {
		return func() bool {
			for {
				select {
				case e := <-ev:
					if e.Kind == grbl.EventState {
						seen[e.Status.State] = true
					}
					continue
				default:
				}
				return seen[want]
			}
		}
	}
	waitFor(t, "a Run event", events(grbl.StateRun))
	r.must("barrier", func() error { return r.c.Barrier(ctx) })
	waitFor(t, "an Idle event", events(grbl.StateIdle))
	stop()
	stop() // twice: harmless
	for range ev {
	}
	if grbl.EventLinkLost.String() != "link lost" || grbl.EventKind(99).String() != "EventKind(99)" {
		t.Error("EventKind names")
	}
	_ = r.c.Close()
	ch, _ := r.c.Subscribe(1)
	if _, ok := <-ch; ok {
		t.Fatal("a subscription to a closed client is open")
	}
}

func nan() float64  { return zero() / zero() }
func inf() float64  { return 1 / zero() }
func zero() float64 { return 0 }

// dialSilent connects to a TCP listener of its own that accepts and keeps quiet, as a
// controller that never greets; what the client writes is recorded.
func dialSilent(t *testing.T) *tap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ln.Close()
		if c, ok := <-accepted; ok {
			_ = c.Close()
		}
	})
	return &tap{Conn: conn}
}

// near reports whether two positions agree to the micrometre (status reports print three
// decimals).
func near(a, b grbl.Vec) bool {
	return math.Abs(a.X-b.X) < 1e-3 && math.Abs(a.Y-b.Y) < 1e-3 && math.Abs(a.Z-b.Z) < 1e-3
}

func TestReopenPTYNudgesReset(t *testing.T) {
	// A later client of the same pty gets no welcome (the board did not reset on open):
	// Open resets the controller at half the welcome timeout, which lifts the finger.
	r, path := ptyRig(t)
	s, c := r.sim, r.c
	r.strike(5, 5)
	_ = c.Close()
	if !s.Snapshot().FingerDown {
		t.Fatal("closing the client moved the finger")
	}
	c2, err := grbl.DialSerial(ctxT(t), path, 115200, append(testOpts(), grbl.WithWelcomeTimeout(time.Second))...)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer c2.Close()
	fingerUp(t, s, "after the reopen's reset")
	if st := c2.Status(); st.State != grbl.StateIdle || !near(st.MPos, grbl.Vec{X: 5, Y: 5}) {
		t.Fatalf("after the reopen: %+v", st)
	}
}

func TestWaitIdleWithBuffer(t *testing.T) {
	r := newRig(t, []grblsim.Option{grblsim.WithSetting(10, 3)}) // MPos and Bf
	ctx := ctxT(t)
	for _, x := range []float64{10, 20, 30} {
		if err := r.c.Rapid(ctx, x, 0); err != nil {
			t.Fatal(err)
		}
	}
	st, err := pump(r, goCall(func() (grbl.Status, error) { return r.c.WaitIdle(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	if st.State != grbl.StateIdle || st.Buf == nil || st.Buf.Planner != 15 || st.MPos != (grbl.Vec{X: 30}) {
		t.Fatalf("WaitIdle returned %+v", st)
	}
	r.sim.InjectAlarm(5)
	var a *grbl.Alarm
	if _, err := r.c.WaitIdle(ctx); !errors.As(err, &a) || a.Code != 5 {
		t.Fatalf("WaitIdle in alarm: %v, want the alarm", err)
	}
}
