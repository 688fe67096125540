package grblsim

import (
	"log/slog"
	"time"
)

// Clock is where the simulator's time comes from. The default is the real clock.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Option configures a Sim.
type Option func(*Sim)

// WithClock sets the clock (default: the real one). Stall counts on it; moves, dwells and
// finger samples count on it sped up by WithSpeed.
func WithClock(c Clock) Option { return func(s *Sim) { s.clock = c } }

// WithSpeed makes the machine run f times faster than the clock (moves, dwells, the finger
// samples): tests run gestures 20× faster while the protocol stays the same. Default 1.
func WithSpeed(f float64) Option {
	return func(s *Sim) {
		if f > 0 {
			s.speed = f
		}
	}
}

// WithSetting sets a GRBL setting ($n=v) as if stored in EEPROM: $10 status report mask
// (1 MPos, 2 Bf), $20=1 soft limits (with $22=1 homing, as GRBL requires), $22=1 homing (the
// machine then powers up locked in alarm state), $32=1 laser mode, $110-$112 max rates
// (mm/min), $120-$122 accelerations (mm/s²), $130-$132 max travel (mm).
func WithSetting(n int, v float64) Option { return func(s *Sim) { s.settings[n] = v } }

// WithStrikePWM sets the spindle PWM value (S) from which M3 puts the finger down (default 1).
func WithStrikePWM(pwm float64) Option { return func(s *Sim) { s.strikePWM = pwm } }

// WithZFinger makes the finger a Z axis: down while Z is at or below touchZ, whatever the
// spindle does.
func WithZFinger(touchZ float64) Option {
	return func(s *Sim) { s.zFinger, s.touchZ = true, touchZ }
}

// WithSampleInterval sets how often, in machine time, a finger down and moving reports its
// position (default 10 ms; samples also lie at most 1 mm apart).
func WithSampleInterval(d time.Duration) Option {
	return func(s *Sim) {
		if d > 0 {
			s.sampleEvery = d
		}
	}
}

// WithLogger sets the logger (default: none).
func WithLogger(l *slog.Logger) Option { return func(s *Sim) { s.log = l } }
