package grblsim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// GRBL 1.1h's protocol constants (grbl/serial.h, protocol.h, report.c).
const (
	rxSize    = 128 // serial receive buffer
	lineSize  = 80  // line buffer: 79 characters and the terminator
	version   = "1.1h"
	buildDate = "20190830"
	welcome   = "\r\nGrbl " + version + " ['$' for help]\r\n"
)

// line flags, as protocol.c tracks them.
const (
	flagOverflow = 1 << iota
	flagParen
	flagSemicolon
)

func defaultSettings() map[int]float64 {
	return map[int]float64{
		0: 10, 1: 25, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0,
		10: 1, 11: 0.010, 12: 0.002, 13: 0,
		20: 0, 21: 0, 22: 0, 23: 3, 24: 25, 25: 500, 26: 250, 27: 1,
		30: 1000, 31: 0, 32: 0,
		100: 80, 101: 80, 102: 400,
		110: 6000, 111: 6000, 112: 1000, // mm/min
		120: 500, 121: 500, 122: 200, // mm/s²
		130: 200, 131: 200, 132: 50, // mm
	}
}

// integer settings print without decimals.
var intSettings = map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 10: true,
	13: true, 20: true, 21: true, 22: true, 23: true, 26: true, 32: true}

// input takes bytes from a connection: realtime commands act at once (as GRBL's serial
// interrupt picks them out), the rest goes to the receive buffer, or is lost when it is full
// (it fills only while a line waits: for room in the planner, a drain, a dwell).
func (s *Sim) input(c *conn, data []byte) {
	s.mu.Lock()
	stalled := s.clock.Now().Before(s.stallUntil)
	s.mu.Unlock()
	if stalled {
		return
	}
	s.step(func() {
		for _, b := range data {
			switch {
			case b == '?':
				if s.halted == 0 { // GRBL halted on a limit answers no status request
					c.send(s.statusReport())
				}
			case b == '!':
				s.feedHold()
			case b == '~':
				s.cycleStart()
			case b == 0x18:
				s.reset(false)
			case b >= 0x80:
				// extended realtime commands (overrides, safety door, jog cancel): not simulated
			case len(s.rx) >= rxSize:
				s.dropped++
			default:
				// The main loop takes bytes as they come unless a line has to wait: only
				// then does the buffer fill, and a '?' after a line sees it run.
				s.rx = append(s.rx, b)
				s.runLines()
			}
		}
	})
}

// out sends a line to every connection, unless the link is stalled.
func (s *Sim) out(text string) {
	if s.clock.Now().Before(s.stallUntil) {
		return
	}
	for c := range s.conns {
		c.send(text)
	}
}

func (s *Sim) reply(code int) {
	if code == 0 {
		if s.dropOK > 0 {
			s.dropOK--
			s.log.Info("grblsim dropped an ok")
			return
		}
		s.out("ok\r\n")
		return
	}
	s.out("error:" + strconv.Itoa(code) + "\r\n")
}

func (s *Sim) msg(text string) { s.out("[MSG:" + text + "]\r\n") }

// runLines executes lines from the receive buffer until one has to wait (a full planner, a
// drain, a dwell) or the buffer holds no whole line. Called with s.mu held.
func (s *Sim) runLines() {
	for s.halted == 0 {
		if !s.runTodo() {
			return
		}
		line, flags, ok := s.takeLine()
		if !ok {
			return
		}
		s.execLine(line, flags)
	}
}

// takeLine takes the next whole line from the receive buffer, filtered as protocol.c does:
// spaces and control characters dropped, comments skipped, letters upper-cased, and a
// line past 79 characters flagged as overflowing.
func (s *Sim) takeLine() (string, int, bool) {
	for len(s.rx) > 0 {
		c := s.rx[0]
		s.rx = s.rx[1:]
		if c == '\n' || c == '\r' {
			line, flags := string(s.line), s.lflags
			s.line, s.lflags = s.line[:0], 0
			return line, flags, true
		}
		switch {
		case s.lflags != 0:
			if c == ')' && s.lflags&flagParen != 0 {
				s.lflags &^= flagParen
			}
		case c <= ' ', c == '/':
		case c == '(':
			s.lflags |= flagParen
		case c == ';':
			s.lflags |= flagSemicolon
		case len(s.line) >= lineSize-1:
			s.lflags |= flagOverflow
		case c >= 'a' && c <= 'z':
			s.line = append(s.line, c-'a'+'A')
		default:
			s.line = append(s.line, c)
		}
	}
	return "", 0, false
}

// execLine executes one line at the cursor and answers it, now or when its actions are done.
func (s *Sim) execLine(line string, flags int) {
	s.lines++
	switch {
	case flags&flagOverflow != 0:
		s.reply(11) // line overflow
	case line == "":
		s.reply(0)
	case line[0] == '$':
		if code := s.system(line); code >= 0 {
			s.reply(code)
		} // else answered when done ($H)
	case s.state == stateAlarm:
		s.reply(9) // G-code lock
	default:
		acts, code := s.gcode(line)
		if code != 0 {
			s.reply(code)
			return
		}
		s.todo = acts
		if len(s.todo) == 0 {
			s.reply(0)
		}
	}
}

// system executes a '$' command (system.c) and returns the status code.
func (s *Sim) system(line string) int {
	busy := s.state == stateRun || s.state == stateHold || s.state == stateHome
	switch line {
	case "$":
		s.out("[HLP:$$ $# $G $I $N $x=val $Nx=line $J=line $SLP $C $X $H ~ ! ? ctrl-x]\r\n")
		return 0
	case "$$":
		if busy {
			return 8
		}
		keys := slices.Sorted(func(yield func(int) bool) {
			for k := range s.settings {
				if !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			v := s.settings[k]
			switch {
			case intSettings[k]:
				s.out(fmt.Sprintf("$%d=%d\r\n", k, int(v)))
			case k == 30 || k == 31: // RPM, no decimals
				s.out(fmt.Sprintf("$%d=%.0f\r\n", k, v))
			default:
				s.out(fmt.Sprintf("$%d=%.3f\r\n", k, v))
			}
		}
		return 0
	case "$G":
		s.out(s.gc.report() + "\r\n")
		return 0
	case "$X":
		if s.state == stateAlarm {
			s.msg("Caution: Unlocked")
			s.state = stateIdle
		}
		return 0
	}
	switch line[1] {
	case '$', 'G', 'X', 'C', 'J':
		return 3 // trailing characters; check mode ($C) and jogging ($J=) are not simulated
	}
	if busy {
		return 8
	}
	switch line {
	case "$#":
		for _, l := range []string{"G54", "G55", "G56", "G57", "G58", "G59", "G28", "G30", "G92"} {
			s.out("[" + l + ":0.000,0.000,0.000]\r\n")
		}
		s.out("[TLO:0.000]\r\n[PRB:0.000,0.000,0.000:0]\r\n")
		return 0
	case "$I":
		s.out("[VER:" + version + "." + buildDate + ":]\r\n[OPT:V," + strconv.Itoa(plannerSize) + "," + strconv.Itoa(rxSize) + "]\r\n")
		return 0
	case "$N":
		s.out("$N0=" + s.startup[0] + "\r\n$N1=" + s.startup[1] + "\r\n")
		return 0
	case "$H":
		if s.settings[22] == 0 {
			return 5 // homing not enabled
		}
		// Homing: seek the origin at the seek rate; answered once there.
		s.state = stateHome
		s.homing = true
		s.todo = []action{{kind: actMove, blk: &block{feed: s.settings[25]}}, {kind: actHomed}}
		return -1
	}
	switch line[1] {
	case '#', 'H', 'I', 'S', 'R':
		return 3 // trailing characters; sleep ($SLP), restore ($RST=), $I= are not simulated
	}
	return s.setSetting(line)
}

// setSetting stores "$n=v" (settings_store_global_setting) or a startup line "$Nn=line".
func (s *Sim) setSetting(line string) int {
	if strings.HasPrefix(line, "$N") {
		n, i, ok := readFloat(line, 2)
		if !ok {
			return 2
		}
		if i >= len(line) || line[i] != '=' {
			return 3
		}
		if n != 0 && n != 1 {
			return 3
		}
		s.startup[int(n)] = line[i+1:]
		return 0
	}
	n, i, ok := readFloat(line, 1)
	if !ok {
		return 2 // "$X1" and the like: bad number format, as GRBL reads it
	}
	if i >= len(line) || line[i] != '=' {
		return 3 // "$32" alone too: GRBL reads settings only with $$
	}
	f, j, ok := readFloat(line, i+1)
	if !ok {
		return 2
	}
	if j != len(line) || n > 255 || n != math.Trunc(n) {
		return 3
	}
	if f < 0 {
		return 4
	}
	if _, known := s.settings[int(n)]; !known {
		return 3
	}
	switch int(n) {
	case 0:
		if f < 3 {
			return 6
		}
	case 20:
		if f != 0 && s.settings[22] == 0 {
			return 10 // soft limits need homing
		}
	case 22:
		if f == 0 {
			s.settings[20] = 0 // GRBL turns soft limits off with homing
		}
	}
	if intSettings[int(n)] {
		f = math.Trunc(f)
	}
	s.settings[int(n)] = f
	return 0
}

// readFloat reads a number as GRBL's read_float does, from line[i]: an optional sign,
// digits and one point, no exponent; at least one digit.
func readFloat(line string, i int) (float64, int, bool) {
	j, digits, point := i, 0, false
	if j < len(line) && (line[j] == '-' || line[j] == '+') {
		j++
	}
	for ; j < len(line); j++ {
		c := line[j]
		if c == '.' && !point {
			point = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		digits++
	}
	if digits == 0 {
		return 0, i, false
	}
	v, err := strconv.ParseFloat(line[i:j], 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, i, false
	}
	return v, j, true
}

// statusReport formats a status report as GRBL 1.1h does ($10 picks MPos or WPos and Bf).
func (s *Sim) statusReport() string {
	var b strings.Builder
	b.WriteString("<")
	b.WriteString(s.stateText())
	mask := int(s.settings[10])
	p := s.pos()
	if mask&1 != 0 {
		b.WriteString("|MPos:")
	} else {
		b.WriteString("|WPos:") // no work offsets here: WPos equals MPos
	}
	fmt.Fprintf(&b, "%.3f,%.3f,%.3f", p[0], p[1], p[2])
	if mask&2 != 0 {
		fmt.Fprintf(&b, "|Bf:%d,%d", plannerSize-len(s.blocks), rxSize-len(s.rx))
	}
	feed := 0.0
	if s.mo != nil {
		_, v := s.mo.at(s.t)
		feed = v * 60
	}
	speed := 0.0
	if s.spindleOn {
		speed = s.spindleS
	}
	fmt.Fprintf(&b, "|FS:%.0f,%.0f", feed, speed)
	switch s.report % 10 {
	case 0:
		b.WriteString("|WCO:0.000,0.000,0.000")
	case 1:
		b.WriteString("|Ov:100,100,100")
		if s.spindleOn {
			b.WriteString("|A:S")
		}
	}
	s.report++
	b.WriteString(">\r\n")
	return b.String()
}

func (s *Sim) stateText() string {
	if s.state == stateHold {
		if s.holdDone {
			return "Hold:0"
		}
		return "Hold:1"
	}
	return string(s.state)
}

// alarm raises ALARM:code: motion and spindle stop at once; hard and soft limits halt GRBL
// until a reset.
func (s *Sim) alarm(code int) {
	s.halt()
	s.spindleOn = false
	// The parser's state says so too (GRBL's reset re-initialises it): else a later M3 at
	// the same S would change nothing and the finger would not strike.
	s.gc.spindle = 5
	s.homing = false
	s.state = stateAlarm
	s.updateFinger()
	s.out("ALARM:" + strconv.Itoa(code) + "\r\n")
	if code == 1 || code == 2 {
		s.msg("Reset to continue")
		s.halted = code
	}
}

// reset is a soft reset (Ctrl-X), or with powerUp a reset GRBL did by itself (a brown-out):
// the steppers stop (ALARM:3, or 6 while homing, when a soft reset catches them running), the
// spindle stops, the planner, the receive buffer and the parser state are cleared, and GRBL
// greets again. A soft reset keeps the position and an alarm state; a power-up loses the
// position and comes up locked only when homing is enabled (HOMING_INIT_LOCK).
func (s *Sim) reset(powerUp bool) {
	wasMoving, wasHoming := s.moving(), s.state == stateHome
	s.halt()
	s.spindleOn, s.spindleS = false, 0
	s.homing = false
	s.updateFinger()
	s.rx, s.line, s.lflags = nil, s.line[:0], 0
	s.gc = defaultModal()
	s.halted = 0
	s.report = 0
	switch {
	case powerUp:
		s.rest, s.ppos = vec{}, vec{}
		s.state = stateIdle
		if s.settings[22] != 0 {
			s.state = stateAlarm
		}
		s.updateFinger() // a Z finger may be somewhere else now
	case wasHoming:
		s.out("ALARM:6\r\n")
		s.state = stateAlarm
	case wasMoving:
		s.out("ALARM:3\r\n")
		s.state = stateAlarm
	}
	s.out(welcome)
	if s.state == stateAlarm {
		s.msg(msgLocked)
	} else {
		s.state = stateIdle
	}
}

// msgLocked is what GRBL says when it comes up locked in alarm state.
const msgLocked = "'$H'|'$X' to unlock"
