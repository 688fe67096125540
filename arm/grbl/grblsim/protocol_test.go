package grblsim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/grbl/grblsim"
)

func TestStatusReports(t *testing.T) {
	s := newSim(t, grblsim.WithClock(newFakeClock()))
	w := dial(t, s)
	// The first report after a reset carries WCO, the next Ov, then neither for a while.
	if got, want := w.status(), "<Idle|MPos:0.000,0.000,0.000|FS:0,0|WCO:0.000,0.000,0.000>"; got != want {
		t.Fatalf("first report %q, want %q", got, want)
	}
	if got, want := w.status(), "<Idle|MPos:0.000,0.000,0.000|FS:0,0|Ov:100,100,100>"; got != want {
		t.Fatalf("second report %q, want %q", got, want)
	}
	if got, want := w.status(), "<Idle|MPos:0.000,0.000,0.000|FS:0,0>"; got != want {
		t.Fatalf("third report %q, want %q", got, want)
	}
	// $10=2: work position and buffer state.
	if _, ans := w.cmd("$10=2"); ans != "ok" {
		t.Fatal(ans)
	}
	r, err := grbl.ParseStatus(w.status())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Work || r.Buf == nil || *r.Buf != (grbl.Buffer{Planner: 15, Rx: 128}) {
		t.Fatalf("with $10=2: %+v, want WPos and Bf:15,128", r)
	}
}

func TestSettings(t *testing.T) {
	s := newSim(t, grblsim.WithClock(newFakeClock()))
	w := dial(t, s)
	lines, ans := w.cmd("$$")
	if ans != "ok" {
		t.Fatal(ans)
	}
	got := strings.Join(lines, " ")
	for _, want := range []string{"$0=10", "$11=0.010", "$20=0", "$30=1000", "$32=0", "$110=6000.000", "$132=50.000"} {
		if !strings.Contains(got, want+" ") && !strings.HasSuffix(got, want) {
			t.Errorf("$$ lacks %s: %s", want, got)
		}
	}
	if len(lines) != 34 {
		t.Errorf("$$ printed %d settings, GRBL 1.1h prints 34", len(lines))
	}
	for _, c := range []struct{ line, ans string }{
		{"$32=1", "ok"},
		{"$32", "error:3"},     // read with $$ only
		{"$999=1", "error:3"},  // no such setting
		{"$77=1", "error:3"},   // no such setting
		{"$20=1", "error:10"},  // soft limits need homing
		{"$0=2", "error:6"},    // step pulse under 3 µs
		{"$1=-1", "error:4"},   // negative
		{"$1=NAN", "error:2"},  // GRBL reads plain decimals only
		{"$1=1E3", "error:3"},  // ... and stops at the E
		{"$22=1", "ok"},        // homing on
		{"$20=1", "ok"},        // now soft limits may be
		{"$N0=G21", "ok"},      // a startup line
		{"$Y", "error:2"},      // read as a setting number: bad number format
		{"$GX", "error:3"},     // $G takes nothing after it
		{"$H", "ok"},           // homing, now enabled: at the origin already
		{"$22=0", "ok"},        // homing off turns soft limits off too
		{"$H", "error:5"},      // homing disabled
		{"$X", "ok"},           // nothing to unlock: no effect
		{"$I", "ok"},           // build info
		{"$#", "ok"},           // offsets
		{"$", "ok"},            // help
		{"$C", "error:3"},      // check mode: not simulated
		{"$110=12000.5", "ok"}, // a float setting
	} {
		if _, ans := w.cmd(c.line); ans != c.ans {
			t.Errorf("%s: %s, want %s", c.line, ans, c.ans)
		}
	}
	set := s.Settings()
	if set[32] != 1 || set[20] != 0 || set[22] != 0 || set[110] != 12000.5 {
		t.Errorf("settings after the writes: $32=%v $20=%v $22=%v $110=%v", set[32], set[20], set[22], set[110])
	}
	if lines, _ := w.cmd("$N"); len(lines) != 2 || lines[0] != "$N0=G21" {
		t.Errorf("$N: %q", lines)
	}
}

func TestGcodeAnswers(t *testing.T) {
	s := newSim(t, grblsim.WithSpeed(20))
	w := dial(t, s)
	for _, c := range []struct{ line, ans string }{
		{"", "ok"}, // empty: for syncing
		{"(a comment) ; and another", "ok"},
		{"g21 g90", "ok"},        // lower case, spaces
		{"G2X1Y1I1", "error:20"}, // arcs: not supported
		{"G0G1X1", "error:21"},   // two motions
		{"G1X1", "error:22"},     // no feed rate yet
		{"X", "error:2"},         // no value
		{"G0X1X2", "error:25"},   // repeated word
		{"1", "error:1"},         // no letter
		{"G4", "error:28"},       // dwell without P
		{"G21P1", "error:36"},    // P without dwell
		{"G1F-5X1", "error:4"},   // negative feed
		{"T300", "error:38"},     // tool number
		{"N1.5G21", "error:27"},  // line number
		{"M3S500", "ok"},         // spindle
		{"M5", "ok"},             //
		{"G0X1Y2", "ok"},         //
		{"G4P0", "ok"},           // drains
		{"M2", "ok"},             // program end
		{"G1X1F100", "ok"},       // M2 kept the feed
		{"G4P0", "ok"},           //
		{"G4P" + strings.Repeat("0", 77), "error:11"},      // 80 characters: one too many
		{"G4 P" + strings.Repeat(" 0", 76) + " (x)", "ok"}, // 79 exactly, spaces and comments aside
	} {
		if _, ans := w.cmd(c.line); ans != c.ans {
			t.Errorf("%q: %s, want %s", c.line, ans, c.ans)
		}
	}
	if lines, _ := w.cmd("$G"); len(lines) != 1 || lines[0] != "[GC:G1 G54 G17 G21 G90 G94 M5 M9 T0 F100 S500]" {
		t.Errorf("$G: %q", lines)
	}
	// CR and LF each end a line: CRLF gets two answers.
	w.send("G21\r\n")
	w.expect("ok")
	w.expect("ok")
	if p := s.Position(); p != (grbl.Vec{X: 1, Y: 2}) {
		t.Errorf("position %v, want X1 Y2", p)
	}
}

func TestAlarmLockAtPowerUp(t *testing.T) {
	s := newSim(t, grblsim.WithClock(newFakeClock()), grblsim.WithSetting(22, 1))
	w := dial(t, s)
	w.expect("[MSG:'$H'|'$X' to unlock]")
	if got := w.status(); !strings.HasPrefix(got, "<Alarm|") {
		t.Fatalf("report %q, want Alarm", got)
	}
	if _, ans := w.cmd("G0X1"); ans != "error:9" {
		t.Fatalf("G-code in alarm state: %s, want error:9 (locked)", ans)
	}
	if _, ans := w.cmd("$$"); ans != "ok" {
		t.Fatalf("$$ in alarm state: %s", ans)
	}
	lines, ans := w.cmd("$X")
	if ans != "ok" || len(lines) != 1 || lines[0] != "[MSG:Caution: Unlocked]" {
		t.Fatalf("$X: %q %s", lines, ans)
	}
	if _, ans := w.cmd("G0X1"); ans != "ok" {
		t.Fatalf("G-code after $X: %s", ans)
	}
}

func TestSoftLimitHalts(t *testing.T) {
	s := newSim(t, grblsim.WithClock(newFakeClock()), grblsim.WithSetting(22, 1), grblsim.WithSetting(20, 1))
	w := dial(t, s)
	w.expect("[MSG:'$H'|'$X' to unlock]")
	w.cmd("$X")
	w.send("G0X500\n")
	w.expect("ALARM:2")
	w.expect("[MSG:Reset to continue]")
	// Halted: no answer to '?' nor to a line; the reset's welcome comes first.
	w.send("?G21\n?")
	w.send("\x18")
	w.expect("Grbl 1.1h ['$' for help]")
	w.expect("[MSG:'$H'|'$X' to unlock]")
	if got := w.status(); !strings.HasPrefix(got, "<Alarm|MPos:0.000,0.000,0.000|") {
		t.Fatalf("after the reset: %q, want Alarm at the origin", got)
	}
	if snap := s.Snapshot(); snap.Halted {
		t.Fatal("still halted after the reset")
	}
}

func TestHoming(t *testing.T) {
	clock := newFakeClock()
	s := newSim(t, grblsim.WithClock(clock), grblsim.WithSetting(22, 1))
	w := dial(t, s)
	w.expect("[MSG:'$H'|'$X' to unlock]")
	w.cmd("$X")
	w.cmd("G0X30Y40")
	w.send("G4P0\n")
	w.sync()
	tick(clock, s, time.Minute)
	w.expect("ok")
	w.send("$H\n")
	if got := w.status(); !strings.HasPrefix(got, "<Home|") {
		t.Fatalf("during homing: %q", got)
	}
	tick(clock, s, time.Minute)
	w.expect("ok")
	if p := s.Position(); p != (grbl.Vec{}) {
		t.Fatalf("homed at %v, want the origin", p)
	}
}

func TestAlarmStopsSpindleInParserToo(t *testing.T) {
	// An alarm stops the spindle; the parser must say M5 too, or a later M3 at the same S
	// after $X changes nothing and the finger does not strike.
	s := newSim(t, grblsim.WithClock(newFakeClock()))
	w := dial(t, s)
	if _, ans := w.cmd("M3S1000"); ans != "ok" {
		t.Fatal(ans)
	}
	if !s.Snapshot().FingerDown {
		t.Fatal("no strike")
	}
	s.InjectAlarm(5)
	w.expect("ALARM:5")
	if snap := s.Snapshot(); snap.Spindle || snap.FingerDown {
		t.Fatalf("after the alarm: %+v", snap)
	}
	if lines, _ := w.cmd("$G"); len(lines) != 1 || !strings.Contains(lines[0], " M5 ") {
		t.Fatalf("$G after the alarm: %q, want M5", lines)
	}
	w.cmd("$X")
	if _, ans := w.cmd("M3S1000"); ans != "ok" {
		t.Fatal(ans)
	}
	if !s.Snapshot().FingerDown {
		t.Fatal("M3 after $X did not strike")
	}
}
