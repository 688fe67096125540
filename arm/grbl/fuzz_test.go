package grbl

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// Fuzz targets for what the controller sends: status reports, and any byte stream through
// the line reader into the client's line handler. Run with scripts/fuzz.sh.

var statusSeeds = []string{
	"<Idle|MPos:0.000,0.000,0.000|FS:0,0|WCO:0.000,0.000,0.000>",
	"<Run|MPos:12.500,-3.250,0.000|Bf:14,127|FS:6000,1000|Ov:100,100,100|A:S>",
	"<Hold:1|WPos:1.000,2.000,3.000|F:500|Ln:12|Pn:XYZ>",
	"<Door:3|MPos:1,2,3,4,5,6|FS:0,0|Foo|Bar:baz>",
	"<Alarm|MPos:0.000,0.000,0.000|FS:0,0>",
	"<Idle|MPos:1e9,0,0>",
	"<Idle|MPos:NaN,0,0>",
	"<|>",
	"<Idle:10|MPos:0,0,0>",
	"<Idle|MPos:0,0,0|WPos:0,0,0>",
}

func FuzzParseStatus(f *testing.F) {
	for _, s := range statusSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseStatus(line)
		if err != nil {
			return
		}
		if len(line) > maxReport {
			t.Fatalf("a report of %d bytes parsed", len(line))
		}
		if r.State == StateUnknown || r.Sub < -1 || r.Sub > 9 || r.Line < -1 {
			t.Fatalf("%q parsed as %+v", line, r)
		}
		// What the report formats to parses again, to the same formatting.
		s := r.String()
		r2, err := ParseStatus(s)
		if err != nil {
			t.Fatalf("%q parsed; its formatting %q does not: %v", line, s, err)
		}
		if s2 := r2.String(); s2 != s {
			t.Fatalf("%q formats to %q, then to %q", line, s, s2)
		}
		var st Status
		st.merge(r, time.Time{})
		_ = describe(st)
	})
}

// nopRW is a transport that takes writes and reads nothing.
type nopRW struct{}

func (nopRW) Read([]byte) (int, error)    { return 0, io.EOF }
func (nopRW) Write(b []byte) (int, error) { return len(b), nil }
func (nopRW) Close() error                { return nil }

func FuzzControllerLines(f *testing.F) {
	for _, s := range []string{
		"\r\nGrbl 1.1h ['$' for help]\r\nok\r\nerror:22\r\nALARM:1\r\n[MSG:Reset to continue]\r\n",
		"Grbl 3.7 [FluidNC v3.7.8 (wifi) '$' for help]\n$110=6000.000\n$Config/Filename=x\n$32=1\nok\n",
		"Grbl 1.1h ['$' for help]\n[GC:G0 G54 G17 G21 G90 G94 M5 M9 T0 F0 S0]\nok\n<Idle|MPos:0,0,0|FS:0,0>\n",
		"Grbl 1.1h ['$' for help]\r\n[MSG:'$H'|'$X' to unlock]\r\n[MSG:Caution: Unlocked]\r\nerror:x\r\nALARM:\r\n<\r\n",
		"ok\nerror:99999999999999999999\nALARM:-4\n" + strings.Repeat("x", 2*maxLine) + "\n",
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, inFlight uint8) {
		if len(data) > 1<<16 {
			return
		}
		o := defaultOptions()
		o.name = "fuzz"
		c := newClient(nopRW{}, o)
		ev, _ := c.Subscribe(4)
		var ps []*pending
		for i := range int(inFlight % 10) {
			line := "G4P0"
			if i%3 == 1 {
				line = "$G"
			}
			p := &pending{line: line, sync: line == "$G", sent: time.Now(), done: make(chan struct{})}
			ps = append(ps, p)
			c.fifo = append(c.fifo, p)
		}
		lr := newLineReader(bytes.NewReader(data))
		for {
			line, cut, err := lr.next()
			if err != nil {
				break
			}
			if line == "" || len(line) > maxLine || strings.ContainsAny(line, "\r\n") || (cut && len(line) != maxLine) {
				t.Fatalf("line reader returned %q (cut %v)", line, cut)
			}
			_ = isWelcome(line)
			if n, v, ok := parseSetting(line); ok && (n < 0 || v != v) {
				t.Fatalf("setting %q parsed as $%d=%v", line, n, v)
			}
			c.handle(line, time.Now())
			for len(ev) > 0 {
				<-ev
			}
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.fifo) > len(ps) {
			t.Fatalf("%d lines in flight, %d were sent", len(c.fifo), len(ps))
		}
		for _, p := range ps {
			if len(p.lines) > 1024 {
				t.Fatalf("%d lines kept for one answer", len(p.lines))
			}
			select {
			case <-p.done:
				if p.err != nil {
					_ = p.err.Error() // decoded without a panic, whatever the code
				}
			default:
			}
		}
		_ = describe(c.st)
	})
}

func FuzzCheckLine(f *testing.F) {
	for _, s := range []string{"G0X1Y2", "G4 P0 (comment) ; more", "M3S1000?", "G1X1\n", "(((;", strings.Repeat("G", 80)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if checkLine(line) != nil {
			return
		}
		if len(line)+1 > rxBuffer {
			t.Fatalf("%d bytes accepted", len(line))
		}
		for i := 0; i < len(line); i++ {
			if b := line[i]; b < 0x20 || b >= 0x7f || b == '?' || b == '!' || b == '~' {
				t.Fatalf("%q accepted with byte %#x", line, b)
			}
		}
	})
}

func TestCheckLineCounts(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{strings.Repeat("G", 79), true},
		{strings.Repeat("G", 80), false},
		{strings.Repeat("G", 79) + strings.Repeat(" ", 48), true}, // spaces do not count
		{"(" + strings.Repeat("x", 90) + ")G0", true},             // nor comments
		{"G0;" + strings.Repeat("x", 100), true},                  // nor what follows ';'
		{"(x)" + strings.Repeat("G", 80) + "(y)", false},          // a comment ends at ')'
		{"G0 (" + strings.Repeat("x", 124), false},                // 129 bytes with the LF
		{"G0 (" + strings.Repeat("x", 123) + ")", false},          // 129 too
		{"G0 (" + strings.Repeat("x", 122) + ")", true},           // 128 with the LF: fits
		{"G0 (?)", false}, {"G0 ;!", false}, {"G0~", false}, // realtime bytes anywhere
		{"G0\x18", false}, {"G0\x7f", false}, {"G0\xc2\xb5", false}, // control, DEL, UTF-8
	} {
		if err := checkLine(c.line); (err == nil) != c.ok {
			t.Errorf("checkLine(%q): %v, want ok %v", c.line, err, c.ok)
		}
	}
}

func TestParseStatusFields(t *testing.T) {
	r, err := ParseStatus("<Hold:1|WPos:1.5,-2.25,3|Bf:14,127|Ln:12|FS:500,1000|Pn:XY|WCO:1,1,1|Ov:90,100,110|A:SF>")
	if err != nil {
		t.Fatal(err)
	}
	if r.State != StateHold || r.Sub != 1 || !r.Work || r.Pos != (Vec{1.5, -2.25, 3}) || *r.Buf != (Buffer{14, 127}) ||
		r.Line != 12 || r.Feed != 500 || r.Speed != 1000 || r.Pins != "XY" || *r.WCO != (Vec{1, 1, 1}) ||
		*r.Ov != (Overrides{90, 100, 110}) || *r.Acc != "SF" {
		t.Fatalf("parsed %+v", r)
	}
	var st Status
	st.merge(r, time.Time{})
	if st.MPos != (Vec{2.5, -1.25, 4}) || st.WPos != r.Pos {
		t.Fatalf("merged %+v: MPos is WPos + WCO", st)
	}
	for _, bad := range []string{
		"", "<>", "Idle|MPos:0,0,0>", "<Idle|FS:0,0>", "<Idle|MPos:0,0,0|WPos:0,0,0>", "<Idle:x|MPos:0,0,0>",
		"<Idle|MPos:1e3,0,0>", "<Idle|MPos:inf,0,0>", "<Idle|MPos:0,0,0|Bf:1>", "<Idle|MPos:0,0,0|Bf:-1,2>",
		"<Idle|MPos:0,0,0|Pn:1>", "<Id1e|MPos:0,0,0>", "<Idle|MPos:" + strings.Repeat("1", maxReport) + ">",
	} {
		if _, err := ParseStatus(bad); err == nil {
			t.Errorf("ParseStatus(%q) took it", bad)
		}
	}
}

func TestCodes(t *testing.T) {
	for code := range errorCodes {
		e := &Error{Code: code}
		if !strings.HasPrefix(e.Error(), "error:") || e.Hint() == "" {
			t.Errorf("error %d: %q, hint %q", code, e.Error(), e.Hint())
		}
	}
	for code := range alarmCodes {
		a := &Alarm{Code: code}
		if !strings.HasPrefix(a.Error(), "ALARM:") || a.Hint() == "" || a.NeedsReset() != (code == 1 || code == 2) {
			t.Errorf("alarm %d: %q, hint %q", code, a.Error(), a.Hint())
		}
	}
	if got := (&Error{Code: 99}).Error(); !strings.Contains(got, "not in GRBL 1.1's table") {
		t.Errorf("unknown error: %q", got)
	}
	if got := (&Alarm{}).Error(); !strings.Contains(got, "locked") {
		t.Errorf("alarm 0: %q", got)
	}
	err := &OpError{Port: "p", Op: "G0", Err: &Error{Code: 9}}
	if got := err.Error(); got != "grbl p: G0: error:9 G-code lock: G-code commands are locked out during alarm or jog state. (the controller is in alarm state: "+hintAlarm+")" {
		t.Errorf("OpError: %q", got)
	}
}
