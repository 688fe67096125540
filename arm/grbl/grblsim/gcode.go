package grblsim

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// modal is the G-code parser's modal state (gc_state in gcode.c).
type modal struct {
	motion   int // 0 or 1
	inches   bool
	relative bool
	feed     float64 // mm/min; 0 = undefined (GRBL forgets it at reset)
	speed    float64 // S
	spindle  int     // 3, 4 or 5
	tool     int
}

func defaultModal() modal { return modal{motion: 0, spindle: 5} }

// report formats $G's answer.
func (m modal) report() string {
	units, dist := "G21", "G90"
	if m.inches {
		units = "G20"
	}
	if m.relative {
		dist = "G91"
	}
	feed := m.feed
	if m.inches {
		feed /= 25.4
	}
	return fmt.Sprintf("[GC:G%d G54 G17 %s %s G94 M%d M9 T%d F%s S%s]", m.motion, units, dist, m.spindle, m.tool,
		strconv.FormatFloat(feed, 'f', -1, 64), strconv.FormatFloat(m.speed, 'f', -1, 64))
}

// actKind is a step of a line's execution that may have to wait.
type actKind int

const (
	actSpindle   actKind = iota + 1 // waits for the planner to drain (even in laser mode), then sets the spindle
	actDwell                        // waits for the drain, then dwells (a feed hold pauses it)
	actMove                         // waits for room in the planner, then queues the block
	actSoftLimit                    // target out of travel: feed hold, then ALARM:2
	actHomed                        // waits for the homing move, then Idle
	actEnd                          // M2/M30: waits for the drain, then resets the modal state
)

type action struct {
	kind  actKind
	on    bool
	speed float64
	dwell time.Duration
	until time.Time // dwell end, once started
	blk   *block
}

// runTodo runs the current line's actions at the cursor; it answers ok after the last one.
// It returns false while one has to wait.
func (s *Sim) runTodo() bool {
	for len(s.todo) > 0 {
		a := &s.todo[0]
		switch a.kind {
		case actSpindle:
			if len(s.blocks) > 0 { // spindle_sync: every spindle change waits for the moves before it
				return false
			}
			s.spindleOn, s.spindleS = a.on, a.speed
			if !a.on {
				s.spindleS = 0
			}
			s.updateFinger()
		case actDwell:
			if a.until.IsZero() {
				if len(s.blocks) > 0 || s.state == stateHold {
					return false
				}
				a.until = s.t.Add(a.dwell)
			}
			if s.t.Before(a.until) {
				return false
			}
		case actMove:
			if len(s.blocks) >= plannerSize {
				return false
			}
			s.queue(a.blk)
		case actSoftLimit:
			// limits_soft_check: a controlled stop first, so the position is kept.
			if s.state == stateRun {
				s.feedHold()
			}
			if s.state == stateHold && !s.holdDone {
				return false
			}
			s.alarm(2)
			return false
		case actHomed:
			if len(s.blocks) > 0 {
				return false
			}
			s.homing = false
			if s.state == stateHome {
				s.state = stateIdle
			}
		case actEnd:
			if len(s.blocks) > 0 {
				return false
			}
			// gc_execute_line's program end: G1 G17 G90 G94 G54 M5 M9; units, F and S stay.
			s.gc.motion, s.gc.relative, s.gc.spindle = 1, false, 5
			s.spindleOn, s.spindleS = false, 0
			s.updateFinger()
			s.msg("Pgm End")
		}
		s.todo = s.todo[1:]
		if len(s.todo) == 0 {
			s.reply(0)
		}
	}
	return true
}

// gcode parses a G-code block (gc_execute_line) into its actions, or returns GRBL's error
// code. Supported: G0 G1 G4 G17 G20 G21 G54 G90 G91 G94, M2 M3 M4 M5 M7 M8 M9 M30, X Y Z F
// S P N T. Arcs, probing, offsets and the rest answer error:20, as an unsupported command.
func (s *Sim) gcode(line string) ([]action, int) {
	var (
		motion, units, dist, spindle = -1, -1, -1, -1
		dwell, end                   bool
		axes                         [3]float64
		hasAxis                      [3]bool
		f, sv, p, tool               float64
		seen                         = map[byte]bool{}
	)
	for i := 0; i < len(line); {
		letter := line[i]
		i++
		if letter < 'A' || letter > 'Z' {
			return nil, 1 // expected command letter
		}
		j, digits := i, 0
		if j < len(line) && (line[j] == '-' || line[j] == '+') {
			j++
		}
		for j < len(line) && (line[j] >= '0' && line[j] <= '9' || line[j] == '.') {
			if line[j] != '.' {
				digits++
			}
			j++
		}
		if digits == 0 {
			return nil, 2 // bad number format
		}
		v, err := strconv.ParseFloat(line[i:j], 64)
		if err != nil {
			return nil, 2
		}
		i = j
		switch letter {
		case 'G':
			if v != math.Trunc(v) {
				return nil, 20
			}
			switch int(v) {
			case 0, 1:
				if motion >= 0 {
					return nil, 21 // modal group violation
				}
				motion = int(v)
			case 4:
				if dwell {
					return nil, 21
				}
				dwell = true
			case 17, 54, 94: // the only plane, coordinate system and feed mode there are here
			case 20, 21:
				if units >= 0 {
					return nil, 21
				}
				units = int(v)
			case 90, 91:
				if dist >= 0 {
					return nil, 21
				}
				dist = int(v)
			default:
				return nil, 20 // unsupported command
			}
			continue
		case 'M':
			if v != math.Trunc(v) {
				return nil, 20
			}
			switch int(v) {
			case 3, 4, 5:
				if spindle >= 0 {
					return nil, 21
				}
				spindle = int(v)
			case 2, 30:
				end = true
			case 7, 8, 9: // coolant: accepted, nothing to cool
			default:
				return nil, 20
			}
			continue
		}
		if seen[letter] {
			return nil, 25 // repeated word
		}
		seen[letter] = true
		switch letter {
		case 'X', 'Y', 'Z':
			k := int(letter - 'X')
			axes[k], hasAxis[k] = v, true
		case 'F', 'S', 'P':
			if v < 0 {
				return nil, 4 // negative value
			}
			switch letter {
			case 'F':
				f = v
			case 'S':
				sv = v
			case 'P':
				p = v
			}
		case 'N':
			if v < 0 || v > 9999999 || v != math.Trunc(v) {
				return nil, 27 // invalid line number
			}
		case 'T':
			if v < 0 {
				return nil, 4
			}
			if v > 255 || v != math.Trunc(v) {
				return nil, 38
			}
			tool = v
		default:
			return nil, 20
		}
	}

	m := s.gc
	if units >= 0 {
		m.inches = units == 20
	}
	if dist >= 0 {
		m.relative = dist == 91
	}
	scale := 1.0
	if m.inches {
		scale = 25.4
	}
	if seen['F'] {
		m.feed = f * scale
	}
	if seen['S'] {
		m.speed = sv
	}
	if seen['T'] {
		m.tool = int(tool)
	}
	if motion >= 0 {
		m.motion = motion
	}
	if dwell && !seen['P'] {
		return nil, 28 // missing value word
	}
	if seen['P'] && !dwell {
		return nil, 36 // unused value word
	}
	anyAxis := hasAxis[0] || hasAxis[1] || hasAxis[2]
	target := s.ppos
	if anyAxis {
		if m.motion == 1 && m.feed == 0 {
			return nil, 22 // undefined feed rate
		}
		for k := range 3 {
			if !hasAxis[k] {
				continue
			}
			if m.relative {
				target[k] += axes[k] * scale
			} else {
				target[k] = axes[k] * scale
			}
		}
	}

	// Actions in gc_execute_line's order: spindle, dwell, motion, program end.
	var acts []action
	if spindle < 0 {
		spindle = m.spindle
	}
	if spindle != s.gc.spindle || (spindle != 5 && seen['S'] && m.speed != s.gc.speed) {
		acts = append(acts, action{kind: actSpindle, on: spindle != 5, speed: m.speed})
	}
	m.spindle = spindle
	if dwell {
		acts = append(acts, action{kind: actDwell, dwell: seconds(p)})
	}
	if anyAxis {
		if s.settings[20] != 0 && !s.inTravel(target) {
			acts = append(acts, action{kind: actSoftLimit})
		} else {
			acts = append(acts, action{kind: actMove, blk: &block{target: target, rapid: m.motion == 0, feed: m.feed}})
		}
	}
	if end {
		acts = append(acts, action{kind: actEnd})
	}
	s.gc = m
	return acts, 0
}

// inTravel checks a target against the soft limits as GRBL built with HOMING_FORCE_SET_ORIGIN
// does: an axis homing towards negative ($23 bit set) travels 0…$13n, the others -$13n…0.
// The default $23=3 gives X and Y 0…max over the phone, and Z -max…0.
func (s *Sim) inTravel(t vec) bool {
	mask := int(s.settings[23])
	for i := range 3 {
		lim := s.settings[130+i]
		lo, hi := -lim, 0.0
		if mask&(1<<i) != 0 {
			lo, hi = 0, lim
		}
		if t[i] < lo || t[i] > hi {
			return false
		}
	}
	return true
}
