package grbl_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/grbl/grblsim"
)

// Every fault grblsim injects ends with the client usable again (after Recover where GRBL
// needs it) or dead with ErrLinkLost, and never with the finger left down once the client
// (or a new one, for a lost link) has done what the error says.

// holding puts the finger down and leaves a long dwell in flight: a long press under way.
func (r *rig) holding() *result[struct{}] {
	r.t.Helper()
	r.strike(20, 30)
	ctx := ctxT(r.t)
	n := r.lines()
	d := goErr(func() error { return r.c.Dwell(ctx, time.Minute) })
	waitFor(r.t, "the dwell to reach the machine", func() bool { return r.lines() > n })
	return d
}

// usable checks the client moves the machine and strikes again, and lifts the finger.
func (r *rig) usable(c *grbl.Client) {
	r.t.Helper()
	ctx := ctxT(r.t)
	r.must("rapid", func() error { return c.Rapid(ctx, 40, 50) })
	r.must("strike", func() error { return c.SpindleOn(ctx, 1000) })
	r.must("barrier", func() error { return c.Barrier(ctx) })
	if snap := r.sim.Snapshot(); !snap.FingerDown || snap.Pos != (grbl.Vec{X: 40, Y: 50}) {
		r.t.Fatalf("the machine after a tap: %+v", snap)
	}
	r.must("lift", func() error { return c.SpindleOff(ctx) })
	r.must("barrier", func() error { return c.Barrier(ctx) })
	fingerUp(r.t, r.sim, "after the tap")
}

func TestFaultHardLimit(t *testing.T) {
	r := newRig(t, nil)
	ev, stop := r.c.Subscribe(32)
	defer stop()
	d := r.holding()
	r.sim.InjectAlarm(1)
	_ = d.wait(t)
	var a *grbl.Alarm
	if !errors.As(d.err, &a) || a.Code != 1 || !strings.Contains(d.err.Error(), "Hard limit has been triggered") {
		t.Fatalf("the dwell across a hard limit: %v, want ALARM:1 with GRBL's text", d.err)
	}
	fingerUp(t, r.sim, "after ALARM:1")
	waitFor(t, "an alarm event", func() bool {
		for {
			select {
			case e := <-ev:
				if e.Kind == grbl.EventAlarm && e.Alarm.Code == 1 && e.Alarm.NeedsReset() {
					return true
				}
			default:
				return false
			}
		}
	})
	// Halted until a reset: a line fails at once and says to Recover.
	if err := r.c.Send(ctxT(t), "G21"); !errors.As(err, &a) || !strings.Contains(err.Error(), "Recover") {
		t.Fatalf("a line while halted: %v", err)
	}
	st, err := r.c.Recover(ctxT(t))
	if err != nil || st.State != grbl.StateIdle {
		t.Fatalf("recover: %+v, %v", st, err)
	}
	r.usable(r.c)
}

func TestFaultHardLimitNewClient(t *testing.T) {
	// The node restarts while GRBL is halted on a limit: the new client's Open resets it
	// (GRBL waits for that and answers no '?' before), where the poll loop would otherwise
	// count the link as lost, for every client after it too.
	r := newRig(t, nil)
	d := r.holding()
	r.sim.InjectAlarm(1)
	var a *grbl.Alarm
	if err := d.wait(t); !errors.As(err, &a) {
		t.Fatalf("the dwell across a hard limit: %v", err)
	}
	_ = r.c.Close()
	c := r.open()
	if st := c.Status(); st.State != grbl.StateAlarm {
		t.Fatalf("a new client on a halted controller: %+v, want the alarm state its reset leaves", st)
	}
	fingerUp(t, r.sim, "after the new client opened")
	if st, err := c.Recover(ctxT(t)); err != nil || st.State != grbl.StateIdle {
		t.Fatalf("recover: %+v, %v", st, err)
	}
	r.usable(c)
}

func TestFaultAlarmLocked(t *testing.T) {
	// An alarm GRBL does not halt on (a probe failure): locked until $X.
	r := newRig(t, nil)
	d := r.holding()
	r.sim.InjectAlarm(5)
	_ = d.wait(t)
	var a *grbl.Alarm
	if !errors.As(d.err, &a) || a.Code != 5 || a.NeedsReset() {
		t.Fatalf("the dwell across ALARM:5: %v", d.err)
	}
	fingerUp(t, r.sim, "after ALARM:5")
	var e *grbl.Error
	if err := r.c.Rapid(ctxT(t), 1, 1); !errors.As(err, &e) || e.Code != 9 || !strings.Contains(err.Error(), "locked out") {
		t.Fatalf("a move while locked: %v, want error:9", err)
	}
	st, err := r.c.Recover(ctxT(t))
	if err != nil || st.State != grbl.StateIdle || st.Alarm != 0 {
		t.Fatalf("recover: %+v, %v", st, err)
	}
	r.usable(r.c)
}

func TestFaultDroppedOK(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	// A line whose ok is lost fails with ErrNoReply once the machine sat idle for the reply
	// timeout; the next line resynchronises and gets its own answer.
	r.sim.DropNextOK()
	err := r.c.Send(ctx, "G21")
	if !errors.Is(err, grbl.ErrNoReply) {
		t.Fatalf("a line whose ok was dropped: %v, want ErrNoReply", err)
	}
	if err := r.c.Send(ctx, "G1X1"); err == nil { // no feed yet: error:22, not G21's ok
		t.Fatal("the line after a lost ok took an answer that was not its own")
	}
	r.must("G90", func() error { return r.c.Send(ctx, "G90") })

	// The strike's ok lost: the caller does what a failed gesture does, Stop.
	r.must("rapid", func() error { return r.c.Rapid(ctx, 10, 10) })
	r.must("barrier", func() error { return r.c.Barrier(ctx) })
	r.must("laser mode", func() error { _, err := r.c.LaserMode(ctx); return err }) // $$ read: M3 goes alone
	r.sim.DropNextOK()
	err = r.run(func() error { return r.c.SpindleOn(ctx, 1000) })
	if !errors.Is(err, grbl.ErrNoReply) {
		t.Fatalf("a strike whose ok was dropped: %v, want ErrNoReply", err)
	}
	if !r.sim.Snapshot().FingerDown {
		t.Fatal("the strike did not run")
	}
	if _, err := pump(r, goCall(func() (grbl.Status, error) { return r.c.Stop(ctx) })); err != nil {
		t.Fatalf("stop: %v", err)
	}
	fingerUp(t, r.sim, "after Stop")
	r.usable(r.c)
}

func TestFaultSpontaneousReset(t *testing.T) {
	for _, homing := range []bool{false, true} {
		name := "idle"
		var opts []grblsim.Option
		if homing {
			name = "locked"
			opts = append(opts, grblsim.WithSetting(22, 1))
		}
		t.Run(name, func(t *testing.T) {
			r := newRig(t, opts)
			if homing {
				if _, err := r.c.Recover(ctxT(t)); err != nil {
					t.Fatal(err)
				}
			}
			ev, stop := r.c.Subscribe(32)
			defer stop()
			d := r.holding()
			r.sim.SpontaneousReset()
			_ = d.wait(t)
			if !errors.Is(d.err, grbl.ErrReset) {
				t.Fatalf("the dwell across a reset: %v, want ErrReset", d.err)
			}
			fingerUp(t, r.sim, "after the reset")
			waitReset(t, ev, func(string) bool { return true })
			want := grbl.StateIdle
			if homing {
				want = grbl.StateAlarm
			}
			st, err := r.c.WaitFor(ctxT(t), func(s grbl.Status) bool { return s.State != grbl.StateUnknown })
			if err != nil || st.State != want || st.MPos != (grbl.Vec{}) {
				t.Fatalf("after a power-up: %+v, %v; want %s at the origin", st, err, want)
			}
			if homing {
				if st, err := r.c.Recover(ctxT(t)); err != nil || st.State != grbl.StateIdle {
					t.Fatalf("recover: %+v, %v", st, err)
				}
			}
			r.usable(r.c)
		})
	}
}

func TestFaultShortStall(t *testing.T) {
	// A stall shorter than the link timeout loses the line sent during it: ErrNoReply, then
	// the client carries on.
	r := newRig(t, nil, grbl.WithLinkTimeout(deadline))
	ctx := ctxT(t)
	r.sim.Stall(time.Hour) // on the fake clock: until the test ends it
	n := r.tap.count('?')
	waitFor(t, "a poll into the stall", func() bool { return r.tap.count('?') > n })
	err := r.c.Send(ctx, "G21")
	if !errors.Is(err, grbl.ErrNoReply) {
		t.Fatalf("a line lost in a stall: %v, want ErrNoReply", err)
	}
	r.sim.StallUntil(time.Time{})
	r.must("G90", func() error { return r.c.Send(ctx, "G90") })
	if r.c.Err() != nil {
		t.Fatal(r.c.Err())
	}
	r.usable(r.c)
}

func TestFaultLongStall(t *testing.T) {
	r := newRig(t, nil, grbl.WithLinkTimeout(time.Second))
	ev, stop := r.c.Subscribe(32)
	defer stop()
	d := r.holding()
	r.sim.Stall(time.Hour)
	err := waitDead(t, r.c)
	isLinkLost(t, err)
	for _, want := range []string{"no status report", "finger may be down", "emergency_stop", "arm_recover", "corral arm recover SERIAL"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("link lost: %q, want the cause and a hint naming Corral's actions (%q)", err, want)
		}
	}
	if strings.Contains(err.Error(), "Stop or Recover") {
		t.Fatalf("link lost: %q names the client's methods, not Corral's actions", err)
	}
	_ = d.wait(t)
	isLinkLost(t, d.err)
	var lost bool
	for e := range ev { // closes after the link-lost event
		lost = lost || (e.Kind == grbl.EventLinkLost && errors.Is(e.Err, grbl.ErrLinkLost))
	}
	if !lost {
		t.Fatal("no link-lost event")
	}
	// Every later call fails at once.
	if err := r.c.Send(ctxT(t), "G21"); !errors.Is(err, grbl.ErrLinkLost) {
		t.Fatalf("a line after the link was lost: %v", err)
	}
	if _, err := r.c.Stop(ctxT(t)); !errors.Is(err, grbl.ErrLinkLost) {
		t.Fatalf("Stop after the link was lost: %v", err)
	}
	// The controller kept the finger down: a new client Stops it, as the hint says.
	r.sim.StallUntil(time.Time{})
	c := r.open()
	if _, err := pump(r, goCall(func() (grbl.Status, error) { return c.Stop(ctxT(t)) })); err != nil {
		t.Fatalf("stop from a new client: %v", err)
	}
	fingerUp(t, r.sim, "after Stop from a new client")
	r.usable(c)
}

func TestFaultDisconnectTCP(t *testing.T) {
	r := newRig(t, nil)
	d := r.holding()
	r.sim.Disconnect()
	err := waitDead(t, r.c)
	isLinkLost(t, err)
	if !strings.Contains(err.Error(), "closed the connection") {
		t.Fatalf("link lost: %q, want the cause", err)
	}
	_ = d.wait(t)
	isLinkLost(t, d.err)
	c := r.open()
	if _, err := pump(r, goCall(func() (grbl.Status, error) { return c.Stop(ctxT(t)) })); err != nil {
		t.Fatalf("stop from a new client: %v", err)
	}
	fingerUp(t, r.sim, "after Stop from a new client")
	r.usable(c)
}

func TestFaultDisconnectPTY(t *testing.T) {
	r, path := ptyRig(t)
	s, c := r.sim, r.c
	d := r.holding()
	s.Disconnect()
	isLinkLost(t, waitDead(t, c))
	_ = d.wait(t)
	isLinkLost(t, d.err)
	// The board comes back under a new name.
	path2 := s.PTYPath()
	if path2 == "" || path2 == path {
		t.Fatalf("pty after the disconnect %q (was %q)", path2, path)
	}
	c2, err := grbl.DialSerial(ctxT(t), path2, 115200, testOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := pump(r, goCall(func() (grbl.Status, error) { return c2.Stop(ctxT(t)) })); err != nil {
		t.Fatalf("stop from a new client: %v", err)
	}
	fingerUp(t, s, "after Stop from a new client")
	r.usable(c2)
}

func TestFaultStallOrphans(t *testing.T) {
	// A controller that takes no line for long: each resynchronising $G is lost too, until
	// the client stops sending and says to reset; after the reset it is usable.
	r := newRig(t, nil, grbl.WithLinkTimeout(deadline), grbl.WithReplyTimeout(100*time.Millisecond))
	ctx := ctxT(t)
	r.sim.Stall(time.Hour)
	n := r.tap.count('?')
	waitFor(t, "a poll into the stall", func() bool { return r.tap.count('?') > n })
	if err := r.c.Send(ctx, "G21"); !errors.Is(err, grbl.ErrNoReply) {
		t.Fatalf("a line lost in a stall: %v, want ErrNoReply", err)
	}
	err := r.c.Send(ctx, "G21")
	if !errors.Is(err, grbl.ErrNoReply) || !strings.Contains(err.Error(), "Reset") {
		t.Fatalf("a line after many lost: %v, want ErrNoReply and a hint to reset", err)
	}
	if got := strings.Count(string(r.tap.Bytes()), "$G\n"); got < 6 {
		t.Errorf("%d resynchronising $G sent, want them tried up to the bound", got)
	}
	r.sim.StallUntil(time.Time{})
	if _, err := r.c.Reset(ctx); err != nil {
		t.Fatalf("reset: %v", err)
	}
	r.usable(r.c)
}
