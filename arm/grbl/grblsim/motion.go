package grblsim

import (
	"math"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
)

// plannerSize is GRBL 1.1's planner on an ATmega328p: 15 blocks, the one executing included.
const plannerSize = 15

// vec is a machine position in millimetres, X Y Z.
type vec [3]float64

func (v vec) sub(w vec) vec       { return vec{v[0] - w[0], v[1] - w[1], v[2] - w[2]} }
func (v vec) add(w vec) vec       { return vec{v[0] + w[0], v[1] + w[1], v[2] + w[2]} }
func (v vec) scale(f float64) vec { return vec{v[0] * f, v[1] * f, v[2] * f} }
func (v vec) norm() float64       { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }
func (v vec) pub() grbl.Vec       { return grbl.Vec{X: v[0], Y: v[1], Z: v[2]} }

// block is one straight move in the planner.
type block struct {
	target vec
	rapid  bool    // G0: at the axes' max rate
	feed   float64 // mm/min, G1
}

// motion is the move under way: a trapezoid (accelerate, cruise, decelerate, from and to rest)
// along the head block, or the deceleration of a feed hold.
type motion struct {
	b      *block
	from   vec
	dir    vec // unit vector
	length float64
	t0     time.Time
	v, a   float64 // cruise speed mm/s, acceleration mm/s²
	ta, tc float64 // accelerating and cruising durations, s
	end    time.Time

	hold   bool      // decelerating to a feed hold
	th     time.Time // when the hold began
	sh, vh float64   // distance and speed then
}

// newMotion plans the head block from the rest position from: GRBL's planner joins blocks at
// junction speeds; this one starts and ends each at rest, which is slower on many short
// segments but exact for the single strokes of gestures.
func newMotion(b *block, from vec, t0 time.Time, maxRate, accel vec) *motion {
	m := &motion{b: b, from: from, t0: t0}
	d := b.target.sub(from)
	m.length = d.norm()
	if m.length < 1e-9 {
		m.end = t0
		return m
	}
	m.dir = d.scale(1 / m.length)
	v, a := math.Inf(1), math.Inf(1)
	for i := range 3 {
		c := math.Abs(m.dir[i])
		if c < 1e-12 {
			continue
		}
		v = math.Min(v, maxRate[i]/60/c)
		a = math.Min(a, accel[i]/c)
	}
	if !b.rapid {
		v = math.Min(v, b.feed/60)
	}
	if v <= 0 || a <= 0 || math.IsInf(v, 0) || math.IsInf(a, 0) {
		v, a = 1, 1 // settings of zero: crawl rather than divide by zero
	}
	da := v * v / (2 * a)
	if 2*da > m.length { // triangle: never reaches v
		v = math.Sqrt(m.length * a)
		da = m.length / 2
	}
	m.v, m.a = v, a
	m.ta = v / a
	m.tc = (m.length - 2*da) / v
	m.end = t0.Add(seconds(2*m.ta + m.tc))
	return m
}

// maxSpan bounds a move's or a dwell's duration: a target a line's 79 characters can put
// light-years away must not overflow a time.Duration.
const maxSpan = 1000 * time.Hour

func seconds(s float64) time.Duration {
	if !(s > 0) { // NaN too
		return 0
	}
	if s >= maxSpan.Seconds() {
		return maxSpan
	}
	return time.Duration(s * float64(time.Second))
}

// at returns the distance travelled and the speed at t.
func (m *motion) at(t time.Time) (s, v float64) {
	if m.length < 1e-9 {
		return 0, 0
	}
	if m.hold {
		u := t.Sub(m.th).Seconds()
		if u >= m.vh/m.a {
			return m.sh + m.vh*m.vh/(2*m.a), 0
		}
		return m.sh + m.vh*u - m.a*u*u/2, m.vh - m.a*u
	}
	tau := t.Sub(m.t0).Seconds()
	switch {
	case tau <= 0:
		return 0, 0
	case tau < m.ta:
		return m.a * tau * tau / 2, m.a * tau
	case tau < m.ta+m.tc:
		return m.v*m.v/(2*m.a) + m.v*(tau-m.ta), m.v
	case tau < 2*m.ta+m.tc:
		u := tau - m.ta - m.tc
		return m.v*m.v/(2*m.a) + m.v*m.tc + m.v*u - m.a*u*u/2, m.v - m.a*u
	}
	return m.length, 0
}

func (m *motion) pos(t time.Time) vec {
	if !t.Before(m.end) && !m.hold {
		return m.b.target
	}
	s, _ := m.at(t)
	if s >= m.length {
		return m.b.target
	}
	return m.from.add(m.dir.scale(s))
}

// startHold turns the move into a deceleration to rest at t (a feed hold): with the
// trapezoid ending at rest, the stop always falls inside the block.
func (m *motion) startHold(t time.Time) {
	s, v := m.at(t)
	m.hold, m.th, m.sh, m.vh = true, t, s, v
	m.end = t.Add(seconds(v / m.a))
}

// axisVec reads three settings from base ($110, $111, $112).
func (s *Sim) axisVec(base int) vec {
	return vec{s.settings[base], s.settings[base+1], s.settings[base+2]}
}

// pos is the machine position at the simulator's time cursor.
func (s *Sim) pos() vec {
	if s.mo != nil {
		return s.mo.pos(s.t)
	}
	return s.rest
}

// queue puts a block in the planner and starts it when the machine is idle.
func (s *Sim) queue(b *block) {
	s.blocks = append(s.blocks, b)
	s.ppos = b.target
	switch {
	case s.state == stateIdle:
		s.state = stateRun
		s.startHead()
	case s.state == stateHome && s.mo == nil:
		s.startHead()
	}
}

// startHead starts the head block at the cursor.
func (s *Sim) startHead() {
	s.mo = newMotion(s.blocks[0], s.rest, s.t, s.axisVec(110), s.axisVec(120))
	s.lastSample = s.t
	s.updateFinger()
}

// finishMotion ends the motion at its end time (the cursor).
func (s *Sim) finishMotion() {
	m := s.mo
	s.rest = m.pos(s.t)
	s.mo = nil
	if m.hold {
		s.holdDone = true
		s.updateFinger()
		return
	}
	s.blocks[0] = nil
	s.blocks = s.blocks[1:]
	s.updateFinger()
	if len(s.blocks) > 0 {
		s.startHead()
		return
	}
	if s.state == stateRun || s.state == stateHome {
		s.state = stateIdle
	}
}

// feedHold starts a feed hold (!). GRBL's homing cycle does not take one. A dwell under way
// pauses: what is left of it runs after the resume.
func (s *Sim) feedHold() {
	if len(s.todo) > 0 && s.todo[0].kind == actDwell && !s.todo[0].until.IsZero() &&
		(s.state == stateIdle || s.state == stateRun) {
		a := &s.todo[0]
		a.dwell, a.until = max(a.until.Sub(s.t), 0), time.Time{}
	}
	switch s.state {
	case stateRun:
		s.state = stateHold
		s.holdDone = false
		if s.mo == nil {
			s.holdDone = true
			return
		}
		s.mo.startHold(s.t)
	case stateIdle:
		s.state, s.holdDone = stateHold, true
	}
}

// cycleStart resumes after a completed hold (~); GRBL ignores it while still decelerating.
func (s *Sim) cycleStart() {
	if s.state != stateHold || !s.holdDone {
		return
	}
	if len(s.blocks) == 0 {
		s.state = stateIdle
		return
	}
	s.state = stateRun
	s.startHead()
}

// halt stops all motion at once (a reset or an alarm: the steppers stop dead) and empties
// the planner and the line under way.
func (s *Sim) halt() {
	s.rest = s.pos()
	s.mo = nil
	s.blocks = nil
	s.todo = nil
	s.ppos = s.rest
	s.holdDone = false
}

// moving reports whether the steppers are running (a reset now loses the position).
func (s *Sim) moving() bool { return s.mo != nil }
