package grbl

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// State is the machine state a status report starts with.
type State string

// GRBL 1.1's machine states. FluidNC reports the same words; an unknown word is kept as is.
const (
	StateUnknown State = "" // no status report yet (or since a reset)
	StateIdle    State = "Idle"
	StateRun     State = "Run"
	StateHold    State = "Hold" // Sub 0: hold complete, 1: decelerating
	StateJog     State = "Jog"
	StateAlarm   State = "Alarm"
	StateDoor    State = "Door" // Sub 0-3
	StateCheck   State = "Check"
	StateHome    State = "Home"
	StateSleep   State = "Sleep"
)

// Vec is a position in millimetres.
type Vec struct{ X, Y, Z float64 }

func (v Vec) add(w Vec) Vec { return Vec{v.X + w.X, v.Y + w.Y, v.Z + w.Z} }
func (v Vec) sub(w Vec) Vec { return Vec{v.X - w.X, v.Y - w.Y, v.Z - w.Z} }

// Buffer is the Bf field: free blocks in the planner and free bytes in the serial receive
// buffer (GRBL reports it when $10 has bit 1 set).
type Buffer struct{ Planner, Rx int }

// Overrides is the Ov field: feed, rapid and spindle overrides in percent.
type Overrides struct{ Feed, Rapid, Spindle int }

// Report is one status report as GRBL sent it. GRBL sends WCO, Ov and A only now and then,
// so a field it left out is nil (or -1 for Line): Status carries the last values.
type Report struct {
	State State
	Sub   int  // Hold:N or Door:N substate; -1 without one
	Pos   Vec  // MPos, or WPos when Work
	Work  bool // Pos is the work position (WPos): $10 bit 0 is clear
	WCO   *Vec // work coordinate offset: WPos = MPos - WCO
	Feed  float64
	Speed float64 // spindle speed (the PWM value S on a finger rig)
	Buf   *Buffer
	Line  int    // Ln: the line number executing; -1 when absent
	Pins  string // Pn: the input pins triggered (XYZPDHRS)
	Ov    *Overrides
	Acc   *string // A: accessories on (S spindle CW, C CCW, F flood, M mist); "" = none
}

// maxReport bounds a status report; GRBL's are under 120 bytes, FluidNC's a few hundred.
const maxReport = 512

var errReport = errors.New("not a status report")

// ParseStatus parses one status report line, "<Idle|MPos:1.000,2.000,0.000|FS:0,0>". Fields
// it does not know are skipped (FluidNC adds some); a known field with a bad value is an
// error. Axes beyond Z are ignored.
func ParseStatus(line string) (Report, error) {
	r := Report{Sub: -1, Line: -1}
	if len(line) > maxReport || len(line) < 2 || line[0] != '<' || line[len(line)-1] != '>' {
		return r, errReport
	}
	fields := strings.Split(line[1:len(line)-1], "|")
	st, sub, hasSub := strings.Cut(fields[0], ":")
	if st == "" || !isWord(st) {
		return r, fmt.Errorf("%w: bad state %q", errReport, fields[0])
	}
	r.State = State(st)
	if hasSub {
		n, err := strconv.Atoi(sub)
		if err != nil || n < 0 || n > 9 {
			return r, fmt.Errorf("%w: bad substate %q", errReport, fields[0])
		}
		r.Sub = n
	}
	pos := false
	for _, f := range fields[1:] {
		name, val, ok := strings.Cut(f, ":")
		if !ok {
			continue // FluidNC and future fields without a value
		}
		var err error
		switch name {
		case "MPos", "WPos":
			if pos {
				return r, fmt.Errorf("%w: two positions", errReport)
			}
			pos = true
			r.Work = name == "WPos"
			r.Pos, err = parseVec(val)
		case "WCO":
			var v Vec
			v, err = parseVec(val)
			r.WCO = &v
		case "FS":
			var n []float64
			n, err = parseFloats(val, 2, 2)
			if err == nil {
				r.Feed, r.Speed = n[0], n[1]
			}
		case "F":
			r.Feed, err = parseFloat(val)
		case "Bf":
			var n []int
			n, err = parseInts(val, 2)
			if err == nil {
				r.Buf = &Buffer{Planner: n[0], Rx: n[1]}
			}
		case "Ln":
			var n []int
			n, err = parseInts(val, 1)
			if err == nil {
				r.Line = n[0]
			}
		case "Ov":
			var n []int
			n, err = parseInts(val, 3)
			if err == nil {
				r.Ov = &Overrides{Feed: n[0], Rapid: n[1], Spindle: n[2]}
			}
		case "Pn":
			if !isWord(val) {
				err = errors.New("bad pins")
			}
			r.Pins = val
		case "A":
			if !isWord(val) {
				err = errors.New("bad accessories")
			}
			a := val
			r.Acc = &a
		}
		if err != nil {
			return r, fmt.Errorf("%w: field %s: %v", errReport, name, err)
		}
	}
	if !pos {
		return r, fmt.Errorf("%w: no MPos or WPos", errReport)
	}
	return r, nil
}

// String formats the report as GRBL does (three decimals for positions).
func (r Report) String() string {
	var b strings.Builder
	b.WriteByte('<')
	b.WriteString(string(r.State))
	if r.Sub >= 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(r.Sub))
	}
	if r.Work {
		b.WriteString("|WPos:")
	} else {
		b.WriteString("|MPos:")
	}
	b.WriteString(fmtVec(r.Pos))
	if r.Buf != nil {
		fmt.Fprintf(&b, "|Bf:%d,%d", r.Buf.Planner, r.Buf.Rx)
	}
	if r.Line >= 0 {
		fmt.Fprintf(&b, "|Ln:%d", r.Line)
	}
	fmt.Fprintf(&b, "|FS:%s,%s", fmtNum(r.Feed), fmtNum(r.Speed))
	if r.Pins != "" {
		b.WriteString("|Pn:" + r.Pins)
	}
	if r.WCO != nil {
		b.WriteString("|WCO:" + fmtVec(*r.WCO))
	}
	if r.Ov != nil {
		fmt.Fprintf(&b, "|Ov:%d,%d,%d", r.Ov.Feed, r.Ov.Rapid, r.Ov.Spindle)
	}
	if r.Acc != nil && *r.Acc != "" {
		b.WriteString("|A:" + *r.Acc)
	}
	b.WriteByte('>')
	return b.String()
}

func fmtVec(v Vec) string {
	return strconv.FormatFloat(v.X, 'f', 3, 64) + "," + strconv.FormatFloat(v.Y, 'f', 3, 64) + "," +
		strconv.FormatFloat(v.Z, 'f', 3, 64)
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// isWord reports whether s is letters only (a state name, pins, accessories).
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

func parseVec(s string) (Vec, error) {
	n, err := parseFloats(s, 1, 9)
	if err != nil {
		return Vec{}, err
	}
	var v Vec
	v.X = n[0]
	if len(n) > 1 {
		v.Y = n[1]
	}
	if len(n) > 2 {
		v.Z = n[2]
	}
	return v, nil
}

func parseFloats(s string, min, max int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) < min || len(parts) > max {
		return nil, fmt.Errorf("%d values, want %d to %d", len(parts), min, max)
	}
	out := make([]float64, len(parts))
	for i, p := range parts {
		f, err := parseFloat(p)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// parseFloat takes GRBL's plain decimals only: no exponent, hex, Inf or NaN.
func parseFloat(s string) (float64, error) {
	if s == "" || len(s) > 24 || strings.ContainsAny(s, "eEpPxXiInN_") {
		return 0, fmt.Errorf("bad number %q", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return f, nil
}

func parseInts(s string, n int) ([]int, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%d values, want %d", len(parts), n)
	}
	out := make([]int, n)
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || len(p) > 9 {
			return nil, fmt.Errorf("bad integer %q", p)
		}
		out[i] = v
	}
	return out, nil
}

// Status is the client's view of the machine: the last status report merged with the fields
// GRBL sends only now and then (WCO, Ov, A), both positions, and the last alarm.
type Status struct {
	State State
	Sub   int // Hold:N or Door:N substate; -1 without one
	MPos  Vec // machine position
	WPos  Vec // work position: MPos - WCO
	WCO   Vec
	Feed  float64
	Speed float64
	Buf   *Buffer // nil unless GRBL reports it ($10 bit 1)
	Line  int     // -1 unless GRBL reports it
	Pins  string
	Ov    Overrides // zero until GRBL reports it
	Acc   string
	Alarm int       // the last ALARM:N code, 0 once unlocked or reset without one
	At    time.Time // when the report arrived
}

// merge takes a new report into the status.
func (s *Status) merge(r Report, at time.Time) {
	s.State, s.Sub = r.State, r.Sub
	if r.WCO != nil {
		s.WCO = *r.WCO
	}
	if r.Work {
		s.WPos, s.MPos = r.Pos, r.Pos.add(s.WCO)
	} else {
		s.MPos, s.WPos = r.Pos, r.Pos.sub(s.WCO)
	}
	s.Feed, s.Speed, s.Buf, s.Line, s.Pins = r.Feed, r.Speed, r.Buf, r.Line, r.Pins
	if r.Ov != nil {
		s.Ov = *r.Ov
	}
	if r.Acc != nil {
		s.Acc = *r.Acc
	}
	if r.State != StateAlarm {
		s.Alarm = 0
	}
	s.At = at
}
