package grblsim

import "time"

// Faults a test or the twin injects at any moment, each as the real machine shows it.

// InjectAlarm raises ALARM:code now, as a tripped limit switch would (1: hard limit): the
// steppers stop dead, the spindle stops (the finger lifts), the planner and the line under
// way are dropped (it gets no answer). On 1 (hard limit) and 2 (soft limit) GRBL then halts
// until a soft reset, answering nothing, not even '?'; on other codes it stays locked in
// alarm state until $X.
func (s *Sim) InjectAlarm(code int) {
	s.step(func() { s.alarm(code) })
}

// DropNextOK makes the simulator swallow its next ok, as a noisy line would.
func (s *Sim) DropNextOK() {
	s.mu.Lock()
	s.dropOK++
	s.mu.Unlock()
}

// SpontaneousReset resets the controller by itself, as a brown-out or a watchdog does: the
// steppers and the spindle stop (the finger lifts), the planner, the parser state and the
// position are lost (it comes up at the origin), and it greets again, locked in alarm state
// when homing is enabled ($22=1). Settings are kept, as in EEPROM.
func (s *Sim) SpontaneousReset() {
	s.step(func() { s.reset(true) })
}

// Stall makes the controller deaf and mute for d on the clock (not sped up): it drops
// every byte it receives, status requests included, and sends nothing, no greeting to a new
// connection either. The machine keeps running what it had. See StallUntil.
func (s *Sim) Stall(d time.Duration) { s.StallUntil(s.clock.Now().Add(d)) }

// StallUntil is Stall until t on the clock; a t in the past ends a stall.
func (s *Sim) StallUntil(t time.Time) {
	s.mu.Lock()
	s.stallUntil = t
	s.mu.Unlock()
}

// Disconnect closes every current connection, as a pulled cable does: a TCP client reads
// EOF, a pty client a hang-up. Listeners keep accepting; each pty is replaced by a new one
// (see PTYPath: the path changes, as a USB board replugged may come back under another
// name). The machine keeps its state, the finger included.
func (s *Sim) Disconnect() {
	s.mu.Lock()
	cs := s.takeConns()
	ps := s.ptys
	s.ptys, s.ptyPath = nil, ""
	s.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
	for _, p := range ps {
		_ = p.Close()
	}
	for range ps {
		if _, err := s.ServePTY(); err != nil {
			s.log.Warn("grblsim: a new pty after the disconnect", "err", err)
		}
	}
}
