package grblsim

import (
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"sync"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
)

// Clock is where the simulator's time comes from. The default is the real clock.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

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

// Option configures a Sim.
type Option func(*Sim)

// WithClock sets the clock (default: the real one).
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

// WithSetting sets a GRBL setting ($n=v) as if stored in EEPROM: $20=1 soft limits (with
// $22=1 homing, as GRBL requires), $32=1 laser mode, $110-$112 max rates (mm/min),
// $120-$122 accelerations (mm/s²), $130-$132 max travel (mm).
func WithSetting(n int, v float64) Option { return func(s *Sim) { s.settings[n] = v } }

// WithStrikePWM sets the spindle PWM value (S) from which M3 puts the finger down (default 1).
func WithStrikePWM(pwm float64) Option { return func(s *Sim) { s.strikePWM = pwm } }

// WithZFinger makes the finger a Z axis: down while Z is at or below touchZ, whatever the
// spindle does.
func WithZFinger(touchZ float64) Option {
	return func(s *Sim) { s.zFinger, s.touchZ = true, touchZ }
}

// WithSampleInterval sets how often, in machine time, a finger down and moving reports its
// position (default 10 ms).
func WithSampleInterval(d time.Duration) Option {
	return func(s *Sim) {
		if d > 0 {
			s.sampleEvery = d
		}
	}
}

// WithLogger sets the logger (default: none).
func WithLogger(l *slog.Logger) Option { return func(s *Sim) { s.log = l } }

// machine states, as the status report spells them.
type state string

const (
	stateIdle  state = "Idle"
	stateRun   state = "Run"
	stateHold  state = "Hold"
	stateAlarm state = "Alarm"
	stateHome  state = "Home"
)

// Sim is a simulated GRBL 1.1h gantry. It serves the real protocol on TCP connections and
// a pty, one machine behind all of them.
type Sim struct {
	clock       Clock
	speed       float64
	strikePWM   float64
	zFinger     bool
	touchZ      float64
	sampleEvery time.Duration
	log         *slog.Logger
	realEpoch   time.Time
	simEpoch    time.Time

	kick chan struct{}
	done chan struct{}
	wg   sync.WaitGroup

	notify   chan struct{} // wakes the finger-event goroutine
	deliver  sync.Mutex    // guards queued
	queued   []FingerEvent
	onFinger func(FingerEvent)

	mu       sync.Mutex
	t        time.Time // the machine's time cursor: state is as of t
	settings map[int]float64
	state    state
	holdDone bool
	halted   int // the alarm GRBL halts on until a reset (hard, soft limit); 0 when not
	homing   bool

	rest       vec // position when no motion runs
	mo         *motion
	blocks     []*block
	ppos       vec // the planner's end position: where G91 counts from
	todo       []action
	spindleOn  bool
	spindleS   float64
	down       bool
	lastFinger vec
	lastSample time.Time
	events     []FingerEvent

	gc     modal // the parser's modal state
	rx     []byte
	line   []byte
	lflags int
	report int // status reports since the last reset: WCO and Ov are sent now and then

	dropOK     int
	dropped    int // bytes GRBL's full receive buffer threw away
	stallUntil time.Time

	conns     map[*conn]struct{}
	listeners []net.Listener
	ptys      []*os.File
	closed    bool
}

// New makes a simulator at rest at the origin, in the Idle state, with GRBL's generic
// settings sized for a small gantry. Serve, ServeTCP or ServePTY expose it; Close stops it.
func New(opts ...Option) *Sim {
	s := &Sim{
		clock:       realClock{},
		speed:       1,
		strikePWM:   1,
		sampleEvery: 10 * time.Millisecond,
		kick:        make(chan struct{}, 1),
		done:        make(chan struct{}),
		notify:      make(chan struct{}, 1),
		settings:    defaultSettings(),
		state:       stateIdle,
		conns:       make(map[*conn]struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.realEpoch = s.clock.Now()
	s.simEpoch = s.realEpoch
	s.t = s.simEpoch
	s.gc = defaultModal()
	s.wg.Add(2)
	go s.loop()
	go s.deliverLoop()
	return s
}

// now is the machine's time: the clock, sped up.
func (s *Sim) now() time.Time {
	d := s.clock.Now().Sub(s.realEpoch)
	return s.simEpoch.Add(time.Duration(float64(d) * s.speed))
}

// Now returns the simulator's current time (the clock of FingerEvent.At).
func (s *Sim) Now() time.Time { return s.now() }

// OnFinger sets the function called for every finger event, in order, on a goroutine of
// the simulator's (it may call the simulator).
func (s *Sim) OnFinger(f func(FingerEvent)) {
	s.mu.Lock()
	s.onFinger = f
	s.mu.Unlock()
}

// Close stops the simulator and closes every connection, listener and pty.
func (s *Sim) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	ls, ps := s.listeners, s.ptys
	s.listeners, s.ptys = nil, nil
	cs := s.takeConns()
	s.mu.Unlock()
	for _, l := range ls {
		_ = l.Close()
	}
	for _, c := range cs {
		c.close()
	}
	for _, p := range ps {
		_ = p.Close()
	}
	s.wg.Wait()
	return nil
}

// loop runs the machine: it advances time to each next event (a move ending, a dwell
// ending, a finger sample) and wakes at once when input arrives.
func (s *Sim) loop() {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		now := s.now()
		s.advance(now)
		next := s.nextEvent()
		s.mu.Unlock()
		s.flushEvents()
		var wake <-chan time.Time
		if !next.IsZero() {
			d := time.Duration(float64(next.Sub(now)) / s.speed)
			wake = s.clock.After(max(d, time.Millisecond))
		}
		select {
		case <-s.done:
			return
		case <-s.kick:
		case <-wake:
		}
	}
}

func (s *Sim) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// advance runs the machine up to now: the lines it can take, then each event in time
// order. Called with s.mu held.
func (s *Sim) advance(now time.Time) {
	if now.Before(s.t) {
		now = s.t
	}
	for {
		s.runLines()
		next := s.nextEvent()
		if next.IsZero() || next.After(now) {
			break
		}
		s.t = next
		s.fire()
	}
	s.t = now
}

// nextEvent is the time of the next thing that changes by itself, or zero.
func (s *Sim) nextEvent() time.Time {
	var next time.Time
	earlier := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	if s.mo != nil {
		earlier(s.mo.end)
		if s.sampling() {
			earlier(s.lastSample.Add(s.sampleEvery))
		}
	}
	if len(s.todo) > 0 && s.todo[0].kind == actDwell && !s.todo[0].until.IsZero() {
		earlier(s.todo[0].until)
	}
	return next
}

// fire handles what falls due at the cursor.
func (s *Sim) fire() {
	if s.mo != nil && !s.t.Before(s.mo.end) {
		s.finishMotion()
	}
	if s.sampling() && !s.t.Before(s.lastSample.Add(s.sampleEvery)) {
		s.lastSample = s.t
		s.updateFinger()
	}
}

// flushEvents hands the finger events of the last step to the delivery goroutine.
func (s *Sim) flushEvents() {
	s.mu.Lock()
	evs := s.events
	s.events = nil
	s.mu.Unlock()
	if len(evs) == 0 {
		return
	}
	s.deliver.Lock()
	s.queued = append(s.queued, evs...)
	s.deliver.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *Sim) deliverLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.done:
			return
		case <-s.notify:
		}
		s.deliver.Lock()
		evs := s.queued
		s.queued = nil
		s.deliver.Unlock()
		s.mu.Lock()
		f := s.onFinger
		s.mu.Unlock()
		for _, e := range evs {
			if f != nil {
				f(e)
			}
		}
	}
}

// step runs f on the machine brought up to now, then wakes the loop and delivers events.
func (s *Sim) step(f func()) {
	s.mu.Lock()
	s.advance(s.now())
	f()
	s.advance(s.t)
	s.mu.Unlock()
	s.wake()
	s.flushEvents()
}

// Snapshot is the machine as the simulator sees it, for tests and the digital twin.
type Snapshot struct {
	State      string   // as in a status report: Idle, Run, Hold:0, Hold:1, Alarm, Home
	Pos        grbl.Vec // machine position, mm
	Spindle    bool
	Speed      float64 // S
	FingerDown bool
	Queued     int  // planner blocks, the one executing included
	Halted     bool // halted on a hard or soft limit until a reset
	Dropped    int  // bytes dropped by the full receive buffer
	Conns      int
	At         time.Time // the simulator's time
}

// Snapshot returns the machine now.
func (s *Sim) Snapshot() Snapshot {
	var snap Snapshot
	s.step(func() {
		snap = Snapshot{
			State: s.stateText(), Pos: s.pos().pub(), Spindle: s.spindleOn, Speed: s.spindleS,
			FingerDown: s.down, Queued: len(s.blocks), Halted: s.halted != 0, Dropped: s.dropped,
			Conns: len(s.conns), At: s.t,
		}
	})
	return snap
}

// Settings returns a copy of the settings.
func (s *Sim) Settings() map[int]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.settings)
}

// InjectAlarm raises ALARM:code now, as a tripped limit switch would: the steppers stop
// dead, the spindle stops (the finger lifts), the planner empties. On 1 (hard limit) and 2
// (soft limit) GRBL then halts until a soft reset, answering nothing but the reset.
func (s *Sim) InjectAlarm(code int) {
	s.step(func() { s.alarm(code) })
}

// DropNextOK makes the simulator swallow its next ok, as a noisy line would.
func (s *Sim) DropNextOK() {
	s.mu.Lock()
	s.dropOK++
	s.mu.Unlock()
}

// InjectReset resets the controller by itself (a brown-out, a watchdog): the steppers and
// the spindle stop, it greets again and comes up in alarm state.
func (s *Sim) InjectReset() {
	s.step(func() { s.reset(true) })
}

// Stall makes the controller deaf and mute for d on the clock (not sped up): it reads and
// drops every byte, status requests included, and sends nothing. The machine keeps moving.
func (s *Sim) Stall(d time.Duration) {
	s.mu.Lock()
	s.stallUntil = s.clock.Now().Add(d)
	s.mu.Unlock()
}

// Disconnect closes every connection (a pty is hung up and gone; TCP keeps listening). The
// machine keeps its state, the finger included.
func (s *Sim) Disconnect() {
	s.mu.Lock()
	cs := s.takeConns()
	ps := s.ptys
	s.ptys = nil
	s.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
	for _, p := range ps {
		_ = p.Close()
	}
}
