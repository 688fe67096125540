package grblsim

import (
	"fmt"
	"time"
)

// FingerKind says what the finger did.
type FingerKind int

const (
	FingerDown FingerKind = iota + 1 // touched the screen
	FingerMove                       // moved while down (a swipe is a path of these)
	FingerUp                         // lifted
)

func (k FingerKind) String() string {
	switch k {
	case FingerDown:
		return "down"
	case FingerMove:
		return "move"
	case FingerUp:
		return "up"
	}
	return fmt.Sprintf("FingerKind(%d)", int(k))
}

// FingerEvent is the finger touching, moving on or leaving the screen, at a machine
// position in millimetres and a time on the simulator's clock.
type FingerEvent struct {
	Kind    FingerKind
	X, Y, Z float64
	At      time.Time
}

// fingerSub is one OnFinger function.
type fingerSub struct {
	id int
	f  func(FingerEvent)
}

// OnFinger adds f to the functions called for every finger event, in order, on a goroutine
// of the simulator's (f may call the simulator; a slow f delays the next events, not the
// machine). The returned function removes it.
func (s *Sim) OnFinger(f func(FingerEvent)) (remove func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subID++
	id := s.subID
	s.subs = append(s.subs, fingerSub{id, f})
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, sub := range s.subs {
			if sub.id == id {
				s.subs = append(s.subs[:i:i], s.subs[i+1:]...)
				return
			}
		}
	}
}

// Flush waits until every finger event of the machine so far has been handed to the
// OnFinger functions (and they returned), or the simulator is closed.
func (s *Sim) Flush() {
	s.step(func() {})
	s.mu.Lock()
	defer s.mu.Unlock()
	want := s.emitted
	for s.delivered < want && !s.closed {
		s.deliveredCond.Wait()
	}
}

// notifyFinger wakes the delivery goroutine when events wait.
func (s *Sim) notifyFinger() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// deliverLoop hands the queued events to the OnFinger functions, in the order the machine
// made them: one goroutine, one queue.
func (s *Sim) deliverLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.done:
			return
		case <-s.notify:
		}
		s.mu.Lock()
		evs, subs := s.events, s.subs
		s.events = nil
		s.mu.Unlock()
		for _, e := range evs {
			for _, sub := range subs {
				sub.f(e)
			}
		}
		s.mu.Lock()
		s.delivered += len(evs)
		s.deliveredCond.Broadcast()
		s.mu.Unlock()
	}
}

// fingerDown says whether the finger touches at the cursor: the spindle on at the strike
// PWM or more (in laser mode only while a G1 move runs), or Z at or below the touch height.
func (s *Sim) fingerDown(p vec) bool {
	if s.zFinger {
		return p[2] <= s.touchZ
	}
	if !s.spindleOn || s.spindleS < s.strikePWM {
		return false
	}
	if s.settings[32] != 0 {
		return s.mo != nil && !s.mo.b.rapid && !s.mo.hold && s.state == stateRun
	}
	return true
}

// updateFinger emits a finger event when the finger went down or up, or moved while down.
func (s *Sim) updateFinger() {
	p := s.pos()
	down := s.fingerDown(p)
	switch {
	case down != s.down:
		s.down = down
		kind := FingerUp
		if down {
			kind = FingerDown
		}
		s.emitFinger(kind, p)
	case down && p != s.lastFinger:
		s.emitFinger(FingerMove, p)
	}
}

func (s *Sim) emitFinger(kind FingerKind, p vec) {
	s.lastFinger = p
	s.lastEvent = FingerEvent{Kind: kind, X: p[0], Y: p[1], Z: p[2], At: s.t}
	if len(s.subs) == 0 {
		return
	}
	s.events = append(s.events, s.lastEvent)
	s.emitted++
}

// sampling reports whether finger positions are sampled: a finger down (or a Z finger that
// may come down) while the head moves.
func (s *Sim) sampling() bool {
	return s.mo != nil && (s.down || s.zFinger)
}

// sampleStep is the machine time between finger samples: the sample interval, or less so
// that samples lie at most 1 mm apart at the move's top speed.
func (s *Sim) sampleStep() time.Duration {
	d := s.sampleEvery
	if s.mo != nil && s.mo.v > 0 {
		d = min(d, max(time.Duration(float64(time.Second)/s.mo.v), 50*time.Microsecond))
	}
	return d
}

// samplingDue reports whether a finger sample falls due at the cursor.
func (s *Sim) samplingDue() bool {
	return s.sampling() && !s.t.Before(s.lastSample.Add(s.sampleStep()))
}
