package grbl_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/grbl/grblsim"
)

func TestBarrierWaitsForMotion(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	// 150 mm at 100 mm/s, accelerating at 500 mm/s²: 1.7 s of machine time. GRBL answers the
	// move at once; the barrier only once it has run.
	if err := r.c.Rapid(ctx, 150, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.c.SpindleOff(ctx); err == nil {
		// M5 waits for the move in GRBL, but is answered before: nothing to check here.
		t.Log("M5 queued")
	}
	n := r.lines()
	b := goErr(func() error { return r.c.Barrier(ctx) })
	waitFor(t, "the barrier to reach the machine", func() bool { return r.lines() > n })
	m := r.tap.count('?')
	waitFor(t, "two polls", func() bool { return r.tap.count('?') >= m+2 })
	if b.finished() {
		t.Fatalf("the barrier returned (%v) before the move ran", b.err)
	}
	r.tick(1690 * time.Millisecond) // just short of the end
	m = r.tap.count('?')
	waitFor(t, "two polls", func() bool { return r.tap.count('?') >= m+2 })
	if b.finished() {
		t.Fatalf("the barrier returned (%v) before the move ended, at %v", b.err, r.sim.Position())
	}
	r.tick(20 * time.Millisecond) // the move ends; the 10 ms dwell runs
	if _, err := pump(r, b); err != nil {
		t.Fatal(err)
	}
	snap := r.sim.Snapshot()
	if snap.Pos != (grbl.Vec{X: 150}) || snap.Queued != 0 || snap.State != "Idle" {
		t.Fatalf("after the barrier the machine is %+v, want idle at X150", snap)
	}
	st, err := r.c.WaitIdle(ctx)
	if err != nil || st.MPos != (grbl.Vec{X: 150}) {
		t.Fatalf("WaitIdle: %+v, %v", st, err)
	}
}

func TestTapGesture(t *testing.T) {
	r := newRig(t, nil)
	var events []grblsim.FingerEvent
	done := make(chan struct{})
	remove := r.sim.OnFinger(func(e grblsim.FingerEvent) {
		events = append(events, e)
		if e.Kind == grblsim.FingerUp {
			close(done)
		}
	})
	defer remove()
	ctx := ctxT(t)
	// The tap of the package comment.
	r.must("tap", func() error {
		if err := r.c.Rapid(ctx, 30, 40); err != nil {
			return err
		}
		if err := r.c.SpindleOn(ctx, 1000); err != nil {
			return err
		}
		if err := r.c.Dwell(ctx, 80*time.Millisecond); err != nil {
			return err
		}
		if err := r.c.SpindleOff(ctx); err != nil {
			return err
		}
		return r.c.Barrier(ctx)
	})
	fingerUp(t, r.sim, "after the tap")
	r.sim.Flush()
	select {
	case <-done:
	default:
		t.Fatalf("no finger up event: %+v", events)
	}
	if len(events) != 2 || events[0].Kind != grblsim.FingerDown || events[0].X != 30 || events[0].Y != 40 {
		t.Fatalf("finger events %+v, want down and up at X30 Y40", events)
	}
	// Down for the dwell, and the M5's round trip after its ok. Machine time runs 20 times
	// faster than real time here, so the bound above is loose: 20 s is 1 s of real time for the
	// round trip on a loaded machine, and still fails a dwell sent in seconds (80 s).
	if held := events[1].At.Sub(events[0].At); held < 80*time.Millisecond || held > 20*time.Second {
		t.Errorf("the finger was down %s, want the dwell's 80 ms and the M5's round trip", held)
	}
}

func TestHoldResume(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	r.must("strike", func() error { return r.c.SpindleOn(ctx, 1000) })
	if err := r.c.Rapid(ctx, 150, 0); err != nil {
		t.Fatal(err)
	}
	r.tick(600 * time.Millisecond) // cruising
	if err := r.c.Hold(ctx); err != nil {
		t.Fatal(err)
	}
	// Decelerating (Hold:1), then held (Hold:0) short of the target.
	if _, err := r.c.WaitFor(ctx, func(s grbl.Status) bool { return s.State == grbl.StateHold && s.Sub == 1 }); err != nil {
		t.Fatalf("no Hold:1: %v", err)
	}
	r.tick(time.Second)
	st, err := r.c.WaitFor(ctx, func(s grbl.Status) bool { return s.State == grbl.StateHold && s.Sub == 0 })
	if err != nil {
		t.Fatalf("no Hold:0: %v", err)
	}
	held := r.sim.Position()
	if !near(st.MPos, held) || held.X <= 0 || held.X >= 150 {
		t.Fatalf("held at %v (status %v), want short of X150", held, st.MPos)
	}
	r.tick(5 * time.Second)
	if p := r.sim.Position(); p != held {
		t.Fatalf("moved from %v to %v during the hold", held, p)
	}
	if !r.sim.Snapshot().Spindle {
		t.Fatal("the spindle stopped in a feed hold")
	}
	if err := r.c.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.WaitFor(ctx, func(s grbl.Status) bool { return s.State == grbl.StateRun }); err != nil {
		t.Fatalf("no Run after resume: %v", err)
	}
	r.must("barrier", func() error { return r.c.Barrier(ctx) })
	if p := r.sim.Position(); p != (grbl.Vec{X: 150}) {
		t.Fatalf("at %v after resume, want X150", p)
	}
	r.must("lift", func() error { return r.c.SpindleOff(ctx) })
	r.must("barrier", func() error { return r.c.Barrier(ctx) })
	fingerUp(t, r.sim, "after M5")
}

func TestResetWhileIdle(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	r.strike(10, 10)
	ev, stop := r.c.Subscribe(16)
	defer stop()
	// A dwell in flight fails with ErrReset. The count is read first: the dwell may reach the
	// machine before goErr returns.
	n := r.lines()
	dwell := goErr(func() error { return r.c.Dwell(ctx, time.Minute) })
	waitFor(t, "the dwell to reach the machine", func() bool { return r.lines() > n })
	for i := range 20 { // a reset and its welcome, many times: none may be missed
		st, err := r.c.Reset(ctx)
		if err != nil {
			t.Fatalf("reset %d: %v", i, err)
		}
		if st.State != grbl.StateIdle {
			t.Fatalf("after reset %d: %s, want Idle", i, st.State)
		}
	}
	_ = dwell.wait(t)
	if !errors.Is(dwell.err, grbl.ErrReset) {
		t.Fatalf("the dwell across a reset: %v, want ErrReset", dwell.err)
	}
	fingerUp(t, r.sim, "after the reset")
	waitReset(t, ev, func(welcome string) bool { return strings.HasPrefix(welcome, "Grbl 1.1h") })
	// A reset forgets the feed rate; the client is usable.
	r.must("move", func() error { return r.c.MoveTo(ctx, 5, 5, 500) })
}

func TestResetWhileMovingAndUnlock(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	if err := r.c.Rapid(ctx, 150, 0); err != nil {
		t.Fatal(err)
	}
	r.tick(300 * time.Millisecond)
	st, err := r.c.Reset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != grbl.StateAlarm || st.Alarm != 3 {
		t.Fatalf("after a reset while moving: %+v, want Alarm 3", st)
	}
	// Locked: G-code answers error:9.
	var e *grbl.Error
	if err := r.c.Rapid(ctx, 0, 0); !errors.As(err, &e) || e.Code != 9 {
		t.Fatalf("a move in alarm state: %v, want error:9", err)
	}
	if err := r.c.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	st, err = r.c.WaitFor(ctx, func(s grbl.Status) bool { return s.State != grbl.StateAlarm })
	if err != nil || st.State != grbl.StateIdle || st.Alarm != 0 {
		t.Fatalf("after $X: %+v, %v", st, err)
	}
	r.must("rapid", func() error { return r.c.Rapid(ctx, 1, 1) })
	r.must("barrier", func() error { return r.c.Barrier(ctx) })
}

func TestStop(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	// The finger down and moving: a swipe under way, with more queued.
	r.strike(10, 10)
	for _, x := range []float64{150, 10, 150} {
		if err := r.c.MoveTo(ctx, x, 10, 3000); err != nil {
			t.Fatal(err)
		}
	}
	r.tick(500 * time.Millisecond)
	st, err := pump(r, goCall(func() (grbl.Status, error) { return r.c.Stop(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	// A hold before the reset: no ALARM:3, the position kept, the planner empty.
	if st.State != grbl.StateIdle {
		t.Fatalf("after Stop: %+v, want Idle (a feed hold before the reset)", st)
	}
	snap := r.sim.Snapshot()
	fingerUp(t, r.sim, "after Stop")
	if snap.Queued != 0 || snap.State != "Idle" || !near(snap.Pos, st.MPos) || snap.Pos.X <= 10 || snap.Pos.X >= 150 {
		t.Fatalf("the machine after Stop: %+v (status %v)", snap, st.MPos)
	}
	r.tick(10 * time.Second)
	if p := r.sim.Position(); p != snap.Pos {
		t.Fatalf("moved after Stop: %v -> %v", snap.Pos, p)
	}
	// Stop at rest and in a halted alarm works too.
	if _, err := r.c.Stop(ctx); err != nil {
		t.Fatalf("stop at rest: %v", err)
	}
	r.sim.InjectAlarm(1)
	waitFor(t, "the alarm", func() bool { return r.c.Status().State == grbl.StateAlarm })
	st, err = r.c.Stop(ctx)
	if err != nil || st.State != grbl.StateAlarm {
		t.Fatalf("stop after a hard limit: %+v, %v; want the alarm state a reset leaves", st, err)
	}
	fingerUp(t, r.sim, "after Stop in alarm")
}

func TestSettingsAfterLongMove(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	if err := r.c.Rapid(ctx, 150, 150); err != nil {
		t.Fatal(err)
	}
	// GRBL answers $$ with error:8 while moving: Settings waits for rest first.
	set, err := pump(r, goCall(func() (map[int]float64, error) { return r.c.Settings(ctx) }))
	if err != nil {
		t.Fatalf("settings right after a long move: %v", err)
	}
	if set[110] != 6000 || set[32] != 0 || set[130] != 200 || len(set) != 34 {
		t.Fatalf("settings %v", set)
	}
	if p := r.sim.Position(); p != (grbl.Vec{X: 150, Y: 150}) {
		t.Fatalf("at %v", p)
	}
	on, err := r.c.LaserMode(ctx)
	if err != nil || on {
		t.Fatalf("laser mode %v, %v; want off", on, err)
	}
}

func TestSettingsInAlarm(t *testing.T) {
	r := newRig(t, []grblsim.Option{grblsim.WithSetting(22, 1)}) // homing on: powers up locked
	ctx := ctxT(t)
	if st := r.c.Status(); st.State != grbl.StateAlarm {
		t.Fatalf("state %s, want Alarm (locked at power-up)", st.State)
	}
	set, err := r.c.Settings(ctx)
	if err != nil || set[22] != 1 {
		t.Fatalf("settings in alarm state: %v, %v", set, err)
	}
}

func TestLaserMode(t *testing.T) {
	r := newRig(t, []grblsim.Option{grblsim.WithSetting(32, 1)})
	ctx := ctxT(t)
	on, err := pump(r, goCall(func() (bool, error) { return r.c.LaserMode(ctx) }))
	if err != nil || !on {
		t.Fatalf("laser mode %v, %v; want on", on, err)
	}
	n := r.lines()
	err = r.c.SpindleOn(ctx, 1000)
	if !errors.Is(err, grbl.ErrLaserMode) || !strings.Contains(err.Error(), "$32=0") {
		t.Fatalf("strike in laser mode: %v, want ErrLaserMode with a hint", err)
	}
	if got := r.lines(); got != n {
		t.Fatal("M3 was sent in laser mode")
	}
	// Setting $32 forgets what was read.
	r.must("$32=0", func() error { return r.c.Send(ctx, "$32=0") })
	on, err = pump(r, goCall(func() (bool, error) { return r.c.LaserMode(ctx) }))
	if err != nil || on {
		t.Fatalf("laser mode after $32=0: %v, %v", on, err)
	}
	r.must("strike", func() error { return r.c.SpindleOn(ctx, 1000) })
	r.must("barrier", func() error { return r.c.Barrier(ctx) })
	if !r.sim.Snapshot().FingerDown {
		t.Fatal("no strike after $32=0")
	}
}

func TestRecoverSoftLimit(t *testing.T) {
	// Soft limits on: a target past the travel raises ALARM:2 and halts GRBL until a reset.
	r := newRig(t, []grblsim.Option{grblsim.WithSetting(22, 1), grblsim.WithSetting(20, 1)}, grbl.WithLinkTimeout(time.Second))
	ctx := ctxT(t)
	st, err := r.c.Recover(ctx) // locked at power-up: $X
	if err != nil || st.State != grbl.StateIdle {
		t.Fatalf("recover from the power-up lock: %+v, %v", st, err)
	}
	r.must("rapid", func() error { return r.c.Rapid(ctx, 10, 10) })
	r.must("barrier", func() error { return r.c.Barrier(ctx) })
	err = r.run(func() error {
		if err := r.c.Rapid(ctx, 500, 10); err != nil {
			return err
		}
		return r.c.Barrier(ctx)
	})
	var a *grbl.Alarm
	if !errors.As(err, &a) || a.Code != 2 || !strings.Contains(err.Error(), "Soft limit alarm") {
		t.Fatalf("a move past the soft limits: %v, want ALARM:2", err)
	}
	// Halted: lines fail at once; no status report comes, and the link still counts as up.
	err = r.c.Send(ctx, "G21")
	if !errors.As(err, &a) || a.Code != 2 || !strings.Contains(err.Error(), "Recover") {
		t.Fatalf("a line while halted: %v, want the alarm and a hint to Recover", err)
	}
	n := r.tap.count('?')
	waitFor(t, "polls past the link timeout", func() bool { return r.tap.count('?') >= n+15 })
	if err := r.c.Err(); err != nil {
		t.Fatalf("halted GRBL answers no '?', and the client died of it: %v", err)
	}
	st, err = r.c.Recover(ctx)
	if err != nil || st.State != grbl.StateIdle {
		t.Fatalf("recover: %+v, %v", st, err)
	}
	if !near(st.MPos, grbl.Vec{X: 10, Y: 10}) {
		t.Errorf("position %v after a soft limit, want X10 Y10 kept", st.MPos)
	}
	r.must("rapid", func() error { return r.c.Rapid(ctx, 20, 20) })
	r.must("barrier", func() error { return r.c.Barrier(ctx) })
}

func TestStopDuringGesture(t *testing.T) {
	// The e-stop: Stop from another goroutine while a swipe runs; the swipe fails, the finger
	// lifts, the machine rests where the hold left it.
	r := newRig(t, nil)
	ctx := ctxT(t)
	r.must("laser mode", func() error { _, err := r.c.LaserMode(ctx); return err })
	swipe := goErr(func() error {
		if err := r.c.Rapid(ctx, 10, 10); err != nil {
			return err
		}
		if err := r.c.SpindleOn(ctx, 1000); err != nil {
			return err
		}
		for i := range 200 { // the planner fills: lines wait for room
			if err := r.c.MoveTo(ctx, 10, float64(10+140*(i%2)), 2000); err != nil {
				return err
			}
		}
		if err := r.c.SpindleOff(ctx); err != nil {
			return err
		}
		return r.c.Barrier(ctx)
	})
	waitFor(t, "the finger down", func() bool {
		r.tick(20 * time.Millisecond)
		return r.sim.Snapshot().FingerDown
	})
	st, err := pump(r, goCall(func() (grbl.Status, error) { return r.c.Stop(ctx) }))
	if err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := swipe.wait(t); !errors.Is(err, grbl.ErrStopped) && !errors.Is(err, grbl.ErrReset) {
		t.Fatalf("the swipe through Stop: %v, want ErrStopped or ErrReset", err)
	}
	fingerUp(t, r.sim, "after Stop")
	if snap := r.sim.Snapshot(); snap.Queued != 0 || snap.State != "Idle" || !near(snap.Pos, st.MPos) {
		t.Fatalf("after Stop: %+v, status %+v", snap, st)
	}
	r.tick(10 * time.Second)
	fingerUp(t, r.sim, "after Stop, later")
	if snap := r.sim.Snapshot(); snap.Queued != 0 || !near(snap.Pos, st.MPos) {
		t.Fatalf("moved after Stop: %+v", snap)
	}
}

func TestStopRefusesOverlappingCalls(t *testing.T) {
	r := newRig(t, nil)
	ctx := ctxT(t)
	r.must("laser mode", func() error { _, err := r.c.LaserMode(ctx); return err })
	// A move under way and a dwell behind it holding the send slot; a strike waits for it.
	if err := r.c.Rapid(ctx, 150, 0); err != nil {
		t.Fatal(err)
	}
	r.tick(500 * time.Millisecond)
	n := r.lines()
	dwell := goErr(func() error { return r.c.Dwell(ctx, time.Second) })
	waitFor(t, "the dwell to reach the machine", func() bool { return r.lines() > n })
	waiting := goErr(func() error { return r.c.SpindleOn(ctx, 1000) })
	// Stop: its feed hold decelerates only as the machine's clock moves, so it waits here.
	stop := goCall(func() (grbl.Status, error) { return r.c.Stop(ctx) })
	waitFor(t, "the hold", func() bool { return r.sim.Snapshot().State == "Hold:1" })
	// A call begun while Stop runs sends nothing.
	n = r.lines()
	if err := r.c.Rapid(ctx, 0, 0); !errors.Is(err, grbl.ErrStopped) || !strings.Contains(err.Error(), "not sent") {
		t.Fatalf("a call during Stop: %v, want ErrStopped", err)
	}
	if _, err := pump(r, stop); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := dwell.wait(t); !errors.Is(err, grbl.ErrReset) {
		t.Fatalf("the dwell in flight: %v, want ErrReset", err)
	}
	// The strike begun before Stop waited for the slot: it is not sent after the reset.
	if err := waiting.wait(t); !errors.Is(err, grbl.ErrStopped) {
		t.Fatalf("a strike waiting through Stop: %v, want ErrStopped", err)
	}
	fingerUp(t, r.sim, "after Stop")
	if got := r.lines(); got != n+1 { // Stop's M5 alone
		t.Fatalf("the machine read %d lines during Stop, want Stop's M5 alone", got-n)
	}
	// A call after Stop goes.
	r.usable(r.c)
}
