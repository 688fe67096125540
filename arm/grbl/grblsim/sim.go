package grblsim

import (
	"log/slog"
	"maps"
	"net"
	"os"
	"sync"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
)

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
// ptys, one machine behind all of them.
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

	kick   chan struct{} // wakes the machine loop
	notify chan struct{} // wakes the finger-event goroutine
	done   chan struct{}
	wg     sync.WaitGroup

	mu sync.Mutex

	// Finger events: made under mu, handed out in order by deliverLoop.
	subs          []fingerSub
	subID         int
	events        []FingerEvent
	emitted       int // events queued for the subscribers so far
	delivered     int // of which handed out
	deliveredCond *sync.Cond
	lastEvent     FingerEvent

	t        time.Time // the machine's time cursor: state is as of t
	settings map[int]float64
	startup  [2]string // $N0 and $N1, kept but not run
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

	gc     modal // the parser's modal state
	rx     []byte
	line   []byte
	lflags int
	report int // status reports since the last reset: WCO and Ov are sent now and then

	dropOK     int
	dropped    int // bytes GRBL's full receive buffer threw away
	lines      int // lines taken from the receive buffer
	stallUntil time.Time

	conns     map[*conn]struct{}
	listeners []net.Listener
	ptys      []*os.File // terminal sides kept open, so that clients come and go
	ptyPath   string
	closed    bool
}

// New makes a simulator at rest at the origin with GRBL's generic settings sized for a small
// gantry: Idle, or locked in alarm state when homing is enabled ($22=1), as GRBL powers up.
// Serve, ServeTCP, ServePTY or Attach expose it; Close stops it.
func New(opts ...Option) *Sim {
	s := &Sim{
		clock:       realClock{},
		speed:       1,
		strikePWM:   1,
		sampleEvery: 10 * time.Millisecond,
		kick:        make(chan struct{}, 1),
		notify:      make(chan struct{}, 1),
		done:        make(chan struct{}),
		settings:    defaultSettings(),
		state:       stateIdle,
		conns:       make(map[*conn]struct{}),
	}
	s.deliveredCond = sync.NewCond(&s.mu)
	for _, o := range opts {
		o(s)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.settings[22] != 0 {
		s.state = stateAlarm
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

// Close stops the simulator and closes every connection, listener and pty.
func (s *Sim) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	s.deliveredCond.Broadcast()
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
		pending := len(s.events) > 0
		s.mu.Unlock()
		if pending {
			s.notifyFinger()
		}
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
			earlier(s.lastSample.Add(s.sampleStep()))
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
	if s.samplingDue() {
		s.lastSample = s.t
		s.updateFinger()
	}
}

// step runs f on the machine brought up to now, then wakes the loop and delivers events.
func (s *Sim) step(f func()) {
	s.mu.Lock()
	s.advance(s.now())
	f()
	s.advance(s.t)
	pending := len(s.events) > 0
	s.mu.Unlock()
	s.wake()
	if pending {
		s.notifyFinger()
	}
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
	Lines      int  // lines read from the receive buffer (answered or not)
	Conns      int
	LastFinger FingerEvent // the last finger event (Kind 0 when the finger never moved)
	At         time.Time   // the simulator's time
}

// Snapshot returns the machine now.
func (s *Sim) Snapshot() Snapshot {
	var snap Snapshot
	s.step(func() {
		snap = Snapshot{
			State: s.stateText(), Pos: s.pos().pub(), Spindle: s.spindleOn, Speed: s.spindleS,
			FingerDown: s.down, Queued: len(s.blocks), Halted: s.halted != 0, Dropped: s.dropped, Lines: s.lines,
			Conns: len(s.conns), LastFinger: s.lastEvent, At: s.t,
		}
	})
	return snap
}

// Position returns the machine position now, in millimetres.
func (s *Sim) Position() grbl.Vec {
	var p grbl.Vec
	s.step(func() { p = s.pos().pub() })
	return p
}

// Settings returns a copy of the settings.
func (s *Sim) Settings() map[int]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.settings)
}
