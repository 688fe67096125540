package grblsim_test

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/grbl/grblsim"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// TestPlannerTiming checks a move's trapezoid against the settings: X at 6000 mm/min
// ($110) and 500 mm/s² ($120) covers 100 mm in 0.2 s of acceleration (10 mm), 0.8 s at
// 100 mm/s and 0.2 s of deceleration. GRBL answers the move at once and the dwell behind
// it only once the move is done.
func TestPlannerTiming(t *testing.T) {
	clock := newFakeClock()
	s := newSim(t, grblsim.WithClock(clock))
	w := dial(t, s)
	if _, ans := w.cmd("G0X100"); ans != "ok" {
		t.Fatal(ans)
	}
	w.send("G4P0\n")
	w.sync()
	var elapsed time.Duration
	for _, c := range []struct {
		at    time.Duration
		x     float64
		state string
	}{
		{100 * time.Millisecond, 2.5, "Run"},   // a t²/2
		{600 * time.Millisecond, 50, "Run"},    // 10 mm + 0.4 s at 100 mm/s
		{1100 * time.Millisecond, 97.5, "Run"}, // 100 - a (0.1 s)²/2
		{1200 * time.Millisecond, 100, "Idle"},
	} {
		tick(clock, s, c.at-elapsed)
		elapsed = c.at
		st := w.status()
		r, err := grbl.ParseStatus(st)
		if err != nil {
			t.Fatal(err)
		}
		if string(r.State) != c.state || !near(r.Pos.X, c.x) {
			t.Fatalf("at %s: %q, want %s at X%.3f", c.at, st, c.state, c.x)
		}
		if c.state == "Run" && strings.Contains(st, "ok") {
			t.Fatal("the dwell was answered before the move ended")
		}
	}
	w.expect("ok") // the dwell, after the status reports of the move
}

func TestPlannerTimingDiagonalAndShort(t *testing.T) {
	for _, c := range []struct {
		line string
		end  time.Duration
	}{
		{"G0X100Y100", 1200 * time.Millisecond}, // both axes at their limits: the same 1.2 s
		{"G0X4", 178885438 * time.Nanosecond},   // never cruises: 2 sqrt(4 mm / 500 mm/s²)
		{"G1X10F600", 1020 * time.Millisecond},  // 10 mm/s: 20 ms each way, 0.98 s cruising
		{"G0Z10", 683333334 * time.Nanosecond},  // Z: 1000 mm/min, 200 mm/s²
	} {
		t.Run(c.line, func(t *testing.T) {
			clock := newFakeClock()
			s := newSim(t, grblsim.WithClock(clock))
			w := dial(t, s)
			if _, ans := w.cmd(c.line); ans != "ok" {
				t.Fatal(ans)
			}
			tick(clock, s, c.end-time.Millisecond)
			if st := s.Snapshot().State; st != "Run" {
				t.Fatalf("1 ms before the end: %s", st)
			}
			tick(clock, s, time.Millisecond)
			if st := s.Snapshot().State; st != "Idle" {
				t.Fatalf("at the end: %s", st)
			}
		})
	}
}

// fingers records a simulator's finger events.
type fingers struct {
	mu  sync.Mutex
	evs []grblsim.FingerEvent
}

func record(s *grblsim.Sim) *fingers {
	f := &fingers{}
	s.OnFinger(func(e grblsim.FingerEvent) {
		f.mu.Lock()
		f.evs = append(f.evs, e)
		f.mu.Unlock()
	})
	return f
}

// events returns every event so far, once the simulator has handed them all out.
func (f *fingers) events(s *grblsim.Sim) []grblsim.FingerEvent {
	s.Flush()
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]grblsim.FingerEvent(nil), f.evs...)
}

func TestFeedHoldAndResume(t *testing.T) {
	clock := newFakeClock()
	s := newSim(t, grblsim.WithClock(clock))
	w := dial(t, s)
	w.cmd("G1X100F6000")
	tick(clock, s, 600*time.Millisecond) // at X50, 100 mm/s
	w.send("!")
	w.sync()
	tick(clock, s, 100*time.Millisecond)
	if st := w.status(); !strings.HasPrefix(st, "<Hold:1|MPos:57.500,") {
		t.Fatalf("decelerating: %q, want Hold:1 at X57.5", st)
	}
	tick(clock, s, 100*time.Millisecond)
	if st := w.status(); !strings.HasPrefix(st, "<Hold:0|MPos:60.000,") {
		t.Fatalf("held: %q, want Hold:0 at X60 (10 mm to stop from 100 mm/s)", st)
	}
	tick(clock, s, time.Hour)
	if p := s.Position(); p.X != 60 {
		t.Fatalf("moved while held: %v", p)
	}
	w.send("~")
	w.sync()
	tick(clock, s, 599*time.Millisecond) // the 40 mm left: 0.2 + 0.2 + 0.2 s
	if st := s.Snapshot(); st.State != "Run" {
		t.Fatalf("resumed: %+v", st)
	}
	tick(clock, s, time.Millisecond)
	if st := s.Snapshot(); st.State != "Idle" || st.Pos.X != 100 {
		t.Fatalf("after the resume: %+v, want Idle at X100", st)
	}
	// A hold while idle is complete at once; it pauses a dwell.
	w.send("G4P1\n")
	w.sync()
	tick(clock, s, 500*time.Millisecond)
	w.send("!")
	w.sync()
	tick(clock, s, time.Hour)
	w.send("~")
	w.sync()
	tick(clock, s, 499*time.Millisecond)
	if st := w.status(); !strings.HasPrefix(st, "<Idle|") {
		t.Fatalf("dwelling: %q", st)
	}
	tick(clock, s, time.Millisecond)
	w.expect("ok")
}

func TestReceiveBuffer(t *testing.T) {
	clock := newFakeClock()
	s := newSim(t, grblsim.WithClock(clock))
	w := dial(t, s)
	w.cmd("$10=3")
	// Lines wait behind a dwell: the buffer takes 128 bytes (32 lines) and loses the rest.
	w.send("G4P100\n" + strings.Repeat("G21\n", 50))
	waitFor(t, "the buffer to fill", func() bool { return s.Snapshot().Dropped == 72 })
	// Realtime commands still get through, and the report says the buffer is full.
	if st := w.status(); !strings.Contains(st, "|Bf:15,0|") {
		t.Fatalf("full buffer: %q, want Bf:15,0", st)
	}
	tick(clock, s, 100*time.Second)
	for i := range 33 {
		if l := w.next(); l != "ok" {
			t.Fatalf("answer %d: %q", i, l)
		}
	}
	if st := w.status(); !strings.Contains(st, "|Bf:15,128|") {
		t.Fatalf("after: %q, want Bf:15,128", st)
	}
	// 15 moves fill the planner; the 16th waits in the parser for room, the 17th in the
	// buffer.
	w.send(strings.Repeat("G91G0X1\n", 17))
	for range 15 {
		w.expect("ok")
	}
	if st := w.status(); !strings.Contains(st, "|Bf:0,120|") {
		t.Fatalf("full planner: %q, want Bf:0,120", st)
	}
	tick(clock, s, time.Minute)
	w.expect("ok")
	w.expect("ok")
	if p := s.Position(); p.X != 17 {
		t.Fatalf("after 17 relative moves: %v", p)
	}
}

// TestFingerSwipe: M3 at the strike PWM puts the finger down where the move before it
// ended; a G1 drags it, sampled at most 1 mm and 10 ms apart; M5 lifts it where it stopped.
func TestFingerSwipe(t *testing.T) {
	clock := newFakeClock()
	s := newSim(t, grblsim.WithClock(clock))
	f := record(s)
	w := dial(t, s)
	for _, l := range []string{"G0X10Y5", "M3S0.5", "M5", "M3S1000", "G1X60F3000", "M5", "G0X0Y0", "G4P0"} {
		w.send(l + "\n")
	}
	w.sync()
	tick(clock, s, time.Minute)
	for range 8 {
		w.expect("ok")
	}
	evs := f.events(s)
	if len(evs) < 50 {
		t.Fatalf("%d events for a 50 mm swipe", len(evs))
	}
	first, last := evs[0], evs[len(evs)-1]
	if first.Kind != grblsim.FingerDown || first.X != 10 || first.Y != 5 {
		t.Fatalf("first event %+v, want down at 10,5 (M3 S0.5 is under the strike PWM)", first)
	}
	if last.Kind != grblsim.FingerUp || last.X != 60 || last.Y != 5 {
		t.Fatalf("last event %+v, want up at 60,5", last)
	}
	for i := 1; i < len(evs)-1; i++ {
		e, prev := evs[i], evs[i-1]
		if e.Kind != grblsim.FingerMove || e.Y != 5 || e.X <= prev.X {
			t.Fatalf("event %d: %+v after %+v", i, e, prev)
		}
		if e.X-prev.X > 1+1e-9 || e.At.Sub(prev.At) > 10*time.Millisecond {
			t.Fatalf("event %d: %.3f mm and %s after the one before", i, e.X-prev.X, e.At.Sub(prev.At))
		}
	}
	if snap := s.Snapshot(); snap.FingerDown || snap.LastFinger != last {
		t.Fatalf("snapshot %+v, want the finger up", snap)
	}
}

func TestFingerLaserModeAndZ(t *testing.T) {
	t.Run("laser", func(t *testing.T) {
		clock := newFakeClock()
		s := newSim(t, grblsim.WithClock(clock), grblsim.WithSetting(32, 1))
		f := record(s)
		w := dial(t, s)
		for _, l := range []string{"M3S1000", "G0X10", "G1X20F3000", "G0X30", "M5", "G4P0"} {
			w.send(l + "\n")
		}
		w.sync()
		tick(clock, s, time.Minute)
		for range 6 {
			w.expect("ok")
		}
		evs := f.events(s)
		// Down only during the G1: from X10 to X20.
		if len(evs) < 2 || evs[0].Kind != grblsim.FingerDown || evs[0].X != 10 ||
			evs[len(evs)-1].Kind != grblsim.FingerUp || evs[len(evs)-1].X != 20 {
			t.Fatalf("laser mode: %v", evs)
		}
	})
	t.Run("z", func(t *testing.T) {
		clock := newFakeClock()
		s := newSim(t, grblsim.WithClock(clock), grblsim.WithZFinger(-2))
		f := record(s)
		w := dial(t, s)
		for _, l := range []string{"G0X5", "G1Z-3F600", "G1Z0", "G4P0"} {
			w.send(l + "\n")
		}
		w.sync()
		tick(clock, s, time.Minute)
		for range 4 {
			w.expect("ok")
		}
		var kinds []grblsim.FingerKind
		for _, e := range f.events(s) {
			if e.Kind != grblsim.FingerMove {
				kinds = append(kinds, e.Kind)
			}
			if e.Kind == grblsim.FingerDown && (e.Z > -2 || e.Z < -2.2 || e.X != 5) {
				t.Errorf("down at %+v, want within a sample of Z-2", e)
			}
		}
		if len(kinds) != 2 || kinds[0] != grblsim.FingerDown || kinds[1] != grblsim.FingerUp {
			t.Fatalf("z finger: %v, want down then up", kinds)
		}
	})
}
