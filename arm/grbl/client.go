package grbl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Realtime commands: single bytes GRBL picks out of the stream as they arrive, ahead of
// any queued line.
const (
	cmdStatus    = '?'
	cmdHold      = '!'
	cmdResume    = '~'
	cmdSoftReset = 0x18
)

// rxBuffer is GRBL's serial receive buffer: a line with its LF must fit in it.
const rxBuffer = 128

// maxOrphans bounds the lines whose answer the client gave up on before it stops
// sending: the controller is then answering nothing, and a reset is the way out.
const maxOrphans = 8

// Option configures a Client.
type Option func(*options)

type options struct {
	name           string
	pollHz         float64
	linkTimeout    time.Duration
	replyTimeout   time.Duration
	welcomeTimeout time.Duration
	holdTimeout    time.Duration
	travel         *[2]Vec // min and max corners; nil: no check
	log            *slog.Logger
}

func defaultOptions() options {
	return options{
		pollHz:         8,
		linkTimeout:    2 * time.Second,
		replyTimeout:   2 * time.Second,
		welcomeTimeout: 5 * time.Second,
		holdTimeout:    3 * time.Second,
	}
}

// WithName names the port in errors and logs (DialSerial and DialTCP use the path or address).
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithPollRate sets how often the client asks for a status report: 5 to 10 Hz (default 8),
// GRBL's advice for a sender.
func WithPollRate(hz float64) Option { return func(o *options) { o.pollHz = hz } }

// WithLinkTimeout sets how long the controller may leave status requests unanswered before
// the link counts as lost (default 2 s; at least two poll periods). GRBL halted on a hard or
// soft limit answers none until it is reset, and is not held to it then.
func WithLinkTimeout(d time.Duration) Option { return func(o *options) { o.linkTimeout = d } }

// WithReplyTimeout sets how long a line may go unanswered while the machine sits idle
// (default 2 s): time spent moving or holding does not count, so a barrier behind a long
// move is not cut short. The call then fails with ErrNoReply.
func WithReplyTimeout(d time.Duration) Option { return func(o *options) { o.replyTimeout = d } }

// WithWelcomeTimeout sets how long Open and Reset wait for the controller's welcome
// (default 5 s: an Arduino's boot loader takes up to 2 s after the port opens).
func WithWelcomeTimeout(d time.Duration) Option { return func(o *options) { o.welcomeTimeout = d } }

// WithHoldTimeout bounds how long Stop waits for a feed hold to bring the machine to rest
// before it resets anyway (default 3 s).
func WithHoldTimeout(d time.Duration) Option { return func(o *options) { o.holdTimeout = d } }

// WithTravel sets the box (machine millimetres, corners included) that MoveTo, Rapid and
// SetZ keep to: a target outside it fails with ErrOutOfTravel and nothing is sent, where
// GRBL's soft limits would halt the machine with ALARM:2. Default: no box.
func WithTravel(min, max Vec) Option {
	return func(o *options) { o.travel = &[2]Vec{min, max} }
}

// WithLogger sets the logger (default: none).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// Client talks to one GRBL 1.1 or FluidNC controller over a byte stream. Its methods are
// safe for concurrent use; lines go one at a time, realtime commands at any time.
type Client struct {
	port string
	rw   io.ReadWriteCloser
	o    options
	log  *slog.Logger

	wmu  sync.Mutex    // one write at a time
	slot chan struct{} // the send slot: one line in flight

	maxPlanner atomic.Int64 // most free planner blocks seen: the planner's size

	mu         sync.Mutex
	greeted    bool          // a welcome arrived: lines before it are stale
	resets     chan struct{} // closed and replaced at each welcome
	fifo       []*pending    // lines sent and not answered, oldest first
	st         Status
	seq        uint64        // counts status updates
	stCh       chan struct{} // closed and replaced at each status update
	lastReport time.Time
	asked      int       // status requests sent since lastReport (Ignoring)
	lastBusy   time.Time // last report of a state where lines legitimately wait
	haltCode   int       // the alarm GRBL halts on until a reset; 0 when not halted
	laser      *bool     // $32 as last read
	stops      uint64    // Stop calls begun
	stopping   int       // Stop calls under way
	stopRun    *stopRun  // the Stop under way that later ones join; nil when none
	askedReset time.Time // when this client sent a soft reset not welcomed yet: that welcome is no news
	subs       map[chan Event]struct{}
	err        error // why the client is dead: the link was lost, or Close
	dead       chan struct{}

	wg sync.WaitGroup
}

// pending is a line sent and waiting for its ok or error:N.
type pending struct {
	line    string
	sync    bool // a $G sent to resynchronise: its [GC:…] marks its answer
	gotGC   bool
	extra   time.Duration // time the line legitimately takes while idle (a dwell)
	sent    time.Time
	lines   []string // what the controller printed before the answer ($$, [GC:…], …)
	err     error
	done    chan struct{}
	gone    bool // the caller stopped waiting; the entry waits for its answer or a reset
	expired bool // the reply timeout failed it
}

func (p *pending) finish(err error) {
	select {
	case <-p.done:
	default:
		p.err = err
		close(p.done)
	}
}

// Open starts a client on rw (a serial port, a TCP connection, a pty): it waits for the
// welcome GRBL prints when the port opens (an Arduino resets then) and, when none comes
// within half the welcome timeout, sends a soft reset (which stops the spindle and any
// motion) and waits again; when no status report follows within half the link timeout (GRBL
// halted on a hard or soft limit answers none until a reset), it resets the controller too,
// which comes up in alarm state for Recover; then it starts polling status and returns once
// the first report is in. The client owns rw and closes it.
func Open(ctx context.Context, rw io.ReadWriteCloser, opts ...Option) (*Client, error) {
	o := defaultOptions()
	for _, f := range opts {
		f(&o)
	}
	if o.name == "" {
		o.name = "controller"
	}
	if err := o.check(); err != nil {
		_ = rw.Close()
		return nil, &OpError{Port: o.name, Op: "open", Err: err}
	}
	c := newClient(rw, o)
	greeted := c.resets // taken before the reader starts: the welcome may be waiting already
	c.wg.Add(1)
	go c.readLoop()
	if err := c.awaitWelcome(ctx, "open", greeted, true); err != nil {
		_ = c.Close()
		return nil, err
	}
	// A controller halted on a hard or soft limit greets a new connection (FluidNC's telnet
	// port, a board that does not reset when the port opens) but answers no '?' until it is
	// reset: the poll loop would count the link as lost, and every new client too. Reset it,
	// as it waits for (the spindle stops: the finger lifts); it comes up locked in alarm
	// state, for Recover.
	if err := c.probeStatus(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	c.wg.Add(1)
	go c.pollLoop()
	if _, err := c.WaitFor(ctx, func(Status) bool { return true }); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// probeStatus asks for a status report and, when none comes within half the link timeout,
// soft-resets the controller and waits for its welcome.
func (c *Client) probeStatus(ctx context.Context) error {
	c.mu.Lock()
	seq0, ch := c.seq, c.stCh
	c.mu.Unlock()
	if err := c.write([]byte{cmdStatus}); err != nil {
		return err
	}
	t := time.NewTimer(c.o.linkTimeout / 2)
	defer t.Stop()
	for {
		select {
		case <-ch:
		case <-ctx.Done():
			return &OpError{Port: c.port, Op: "open", Err: fmt.Errorf("waiting for a status report: %w", ctx.Err())}
		case <-c.dead:
			return c.Err()
		case <-t.C:
			c.log.Warn("grbl no status report after the welcome (halted on a limit?), resetting", "port", c.port)
			welcome := c.welcomes()
			if err := c.softReset(); err != nil {
				return err
			}
			return c.awaitWelcome(ctx, "open", welcome, false)
		}
		c.mu.Lock()
		seq, next := c.seq, c.stCh
		c.mu.Unlock()
		if seq > seq0 {
			return nil
		}
		ch = next
	}
}

// newClient makes a client on rw with checked options; Open starts it.
func newClient(rw io.ReadWriteCloser, o options) *Client {
	c := &Client{
		port:   o.name,
		rw:     rw,
		o:      o,
		log:    o.log,
		slot:   make(chan struct{}, 1),
		resets: make(chan struct{}),
		stCh:   make(chan struct{}),
		subs:   make(map[chan Event]struct{}),
		dead:   make(chan struct{}),
		st:     Status{Sub: -1, Line: -1},
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

func (o *options) check() error {
	if o.pollHz < 5 || o.pollHz > 10 {
		return fmt.Errorf("%w: poll rate %g Hz, want 5 to 10", ErrBadArgument, o.pollHz)
	}
	period := time.Duration(float64(time.Second) / o.pollHz)
	if o.linkTimeout < 2*period {
		return fmt.Errorf("%w: link timeout %s under two poll periods (%s)", ErrBadArgument, o.linkTimeout, 2*period)
	}
	if o.replyTimeout <= 0 || o.welcomeTimeout <= 0 || o.holdTimeout <= 0 {
		return fmt.Errorf("%w: timeouts must be positive", ErrBadArgument)
	}
	if t := o.travel; t != nil {
		for _, f := range []float64{t[0].X, t[0].Y, t[0].Z, t[1].X, t[1].Y, t[1].Z} {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("%w: travel %v", ErrBadArgument, *t)
			}
		}
		if t[0].X > t[1].X || t[0].Y > t[1].Y || t[0].Z > t[1].Z {
			return fmt.Errorf("%w: travel min %v above max %v", ErrBadArgument, t[0], t[1])
		}
	}
	return nil
}

// Port names the port the client talks to.
func (c *Client) Port() string { return c.port }

// Close stops the client and closes its transport. Calls in progress fail with ErrClosed.
func (c *Client) Close() error {
	c.die(&OpError{Port: c.port, Op: "close", Err: ErrClosed})
	c.wg.Wait()
	return nil
}

// Err returns why the client stopped working (ErrLinkLost, ErrClosed), or nil.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Done is closed when the client stops working (see Err).
func (c *Client) Done() <-chan struct{} { return c.dead }

// die marks the client dead with err (once), fails every waiting call and closes the port.
func (c *Client) die(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	for _, p := range c.fifo {
		p.finish(err)
	}
	c.fifo = nil
	if errors.Is(err, ErrLinkLost) {
		c.log.Warn("grbl link lost", "port", c.port, "err", err)
		c.emit(Event{Kind: EventLinkLost, At: time.Now(), Status: c.st, Err: err})
	}
	for ch := range c.subs {
		close(ch)
	}
	c.subs = nil
	close(c.dead)
	c.mu.Unlock()
	_ = c.rw.Close()
}

func (c *Client) linkLost(cause error, hint string) {
	c.die(&OpError{Port: c.port, Op: "link", Err: fmt.Errorf("%w: %v", ErrLinkLost, cause), Hint: hint})
}

// hintLink names what a person does in Corral: the rig's node dials the controller again by
// itself, and the controller keeps its state meanwhile, the finger maybe down.
const hintLink = "check the cable, the power or the network; the controller keeps its state, the finger may be down: " +
	"emergency_stop holds the rig, arm_recover (corral arm recover SERIAL) brings the finger up once the link is back"

// write sends bytes to the controller; a failed write loses the link.
func (c *Client) write(b []byte) error {
	c.wmu.Lock()
	_, err := c.rw.Write(b)
	c.wmu.Unlock()
	if err != nil {
		c.linkLost(fmt.Errorf("write: %w", err), hintLink)
		return c.Err()
	}
	return nil
}

// realtime sends a realtime command byte.
func (c *Client) realtime(op string, b byte) error {
	if err := c.Err(); err != nil {
		return err
	}
	if err := c.write([]byte{b}); err != nil {
		return err
	}
	c.log.Debug("grbl realtime", "port", c.port, "op", op)
	return nil
}

// readLoop reads the controller's lines until the link dies.
func (c *Client) readLoop() {
	defer c.wg.Done()
	lr := newLineReader(c.rw)
	for {
		line, cut, err := lr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the controller closed the connection")
			}
			c.linkLost(err, hintLink)
			return
		}
		if cut {
			c.log.Warn("grbl line too long, cut", "port", c.port, "line", line[:64])
		}
		c.handle(line, time.Now())
	}
}

// handle takes one line from the controller.
func (c *Client) handle(line string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	if isWelcome(line) {
		c.onWelcome(line, now)
		return
	}
	if !c.greeted {
		c.log.Debug("grbl line before the welcome, skipped", "port", c.port, "line", line)
		return
	}
	switch {
	case line == "ok":
		c.answer(nil)
	case strings.HasPrefix(line, "error:"):
		n, err := strconv.Atoi(line[len("error:"):])
		if err != nil {
			c.log.Warn("grbl bad error line", "port", c.port, "line", line)
			n = -1
		}
		c.answer(&Error{Code: n})
	case strings.HasPrefix(line, "ALARM:"):
		n, err := strconv.Atoi(line[len("ALARM:"):])
		if err != nil {
			c.log.Warn("grbl bad alarm line", "port", c.port, "line", line)
			n = 0
		}
		c.onAlarm(n, now)
	case line[0] == '<':
		r, err := ParseStatus(line)
		if err != nil {
			c.log.Warn("grbl bad status report", "port", c.port, "line", line, "err", err)
			return
		}
		c.onReport(r, now)
	case strings.HasPrefix(line, "[MSG:"):
		c.onMessage(strings.TrimSuffix(line[len("[MSG:"):], "]"), now)
	case strings.HasPrefix(line, "[GC:"):
		c.onGC(line)
	default:
		c.info(line)
	}
}

func (c *Client) onWelcome(line string, now time.Time) {
	first := !c.greeted
	c.greeted = true
	for _, p := range c.fifo {
		p.finish(&OpError{Port: c.port, Op: p.line, Err: ErrReset,
			Hint: "the controller reset before it answered: the line may not have run; check Status"})
	}
	c.fifo = nil
	c.haltCode = 0
	c.lastReport, c.asked = now, 0
	c.st.State, c.st.Sub = StateUnknown, -1
	close(c.resets)
	c.resets = make(chan struct{})
	asked := c.resetWasAsked(now)
	if first {
		c.log.Info("grbl connected", "port", c.port, "welcome", line)
		return
	}
	if asked {
		c.log.Info("grbl controller reset", "port", c.port, "welcome", line)
	} else {
		c.log.Warn("grbl controller reset by itself (a reboot, a power dip, another client's reset?)", "port", c.port, "welcome", line)
	}
	c.emit(Event{Kind: EventReset, At: now, Status: c.st, Text: line})
}

// softReset sends GRBL's soft reset and notes that this client asked for it.
func (c *Client) softReset() error {
	c.mu.Lock()
	c.askedReset = time.Now()
	c.mu.Unlock()
	return c.write([]byte{cmdSoftReset})
}

// resetWasAsked says whether a welcome at now answers the reset this client sent last (the
// first welcome within the welcome timeout after it): one it asked for is routine, one it
// did not is worth a warning. Called with c.mu held.
func (c *Client) resetWasAsked(now time.Time) bool {
	asked := !c.askedReset.IsZero() && now.Sub(c.askedReset) <= c.o.welcomeTimeout
	c.askedReset = time.Time{}
	return asked
}

// answer takes an ok (err nil) or error:N for the oldest line in flight.
func (c *Client) answer(err error) {
	if len(c.fifo) == 0 {
		c.log.Warn("grbl answer with no line in flight", "port", c.port, "err", err)
		return
	}
	p := c.fifo[0]
	c.fifo[0] = nil
	c.fifo = c.fifo[1:]
	if err != nil {
		err = &OpError{Port: c.port, Op: p.line, Err: err}
	}
	if p.gone {
		c.log.Debug("grbl late answer", "port", c.port, "line", p.line, "err", err)
	}
	p.finish(err)
}

func (c *Client) onAlarm(code int, now time.Time) {
	a := &Alarm{Code: code}
	old := c.st
	c.st.State, c.st.Sub, c.st.Alarm = StateAlarm, -1, code
	if a.NeedsReset() {
		c.haltCode = code
	}
	for _, p := range c.fifo {
		if !p.gone {
			p.gone = true
			p.finish(&OpError{Port: c.port, Op: p.line, Err: a})
		}
	}
	c.log.Warn("grbl alarm", "port", c.port, "alarm", a.Error())
	c.bump()
	c.emit(Event{Kind: EventAlarm, At: now, Status: c.st, Alarm: a})
	if old.State != StateAlarm {
		c.emit(Event{Kind: EventState, At: now, Status: c.st, From: old.State})
	}
}

func (c *Client) onReport(r Report, now time.Time) {
	old := c.st
	c.st.merge(r, now)
	c.lastReport, c.asked = now, 0
	switch r.State {
	case StateIdle, StateAlarm, StateCheck, StateSleep:
		if r.State == StateIdle && r.Buf != nil && int64(r.Buf.Planner) > c.maxPlanner.Load() {
			c.maxPlanner.Store(int64(r.Buf.Planner))
		}
	default:
		c.lastBusy = now
	}
	c.bump()
	if old.State != c.st.State || old.Sub != c.st.Sub {
		c.emit(Event{Kind: EventState, At: now, Status: c.st, From: old.State})
	}
}

func (c *Client) onMessage(msg string, now time.Time) {
	switch msg {
	case "Reset to continue":
		if c.haltCode == 0 {
			c.haltCode = max(c.st.Alarm, 1)
		}
	case "'$H'|'$X' to unlock":
		old := c.st.State
		c.st.State, c.st.Sub = StateAlarm, -1
		c.bump()
		if old != StateAlarm {
			c.emit(Event{Kind: EventState, At: now, Status: c.st, From: old})
		}
	case "Caution: Unlocked":
		c.st.Alarm = 0
	}
	c.info("[MSG:" + msg + "]")
	c.emit(Event{Kind: EventMessage, At: now, Status: c.st, Text: msg})
}

// onGC takes the [GC:…] that $G prints before its ok. A resynchronising $G uses it: every
// line sent before that $G and still unanswered lost its answer.
func (c *Client) onGC(line string) {
	for i, p := range c.fifo {
		if p.line != "$G" || p.gotGC {
			continue
		}
		for _, q := range c.fifo[:i] {
			q.finish(&OpError{Port: c.port, Op: q.line, Err: ErrNoReply, Hint: "its answer was lost"})
		}
		c.fifo = c.fifo[i:]
		p.gotGC = true
		if !p.gone {
			p.lines = append(p.lines, line)
		}
		return
	}
	c.info(line)
}

// info keeps a line printed ahead of an answer ($N=v, [VER:…], [MSG:…]) for the line in flight.
func (c *Client) info(line string) {
	if len(c.fifo) == 0 {
		c.log.Debug("grbl says", "port", c.port, "line", line)
		return
	}
	// A line already failed (an alarm, the reply timeout) has handed its lines out.
	if p := c.fifo[0]; !p.gone && len(p.lines) < 1024 {
		p.lines = append(p.lines, line)
	}
}

// bump tells status waiters something changed.
func (c *Client) bump() {
	c.seq++
	close(c.stCh)
	c.stCh = make(chan struct{})
}

// welcomes returns the channel the next welcome closes. Take it before the write that
// provokes the welcome: the reader may take the welcome in before the writer looks.
func (c *Client) welcomes() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resets
}

// awaitWelcome waits for the welcome that closes ch (see welcomes); with nudge, it resets
// the controller when none came within half the timeout.
func (c *Client) awaitWelcome(ctx context.Context, op string, ch <-chan struct{}, nudge bool) error {
	wait := c.o.welcomeTimeout
	if nudge {
		wait /= 2
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return &OpError{Port: c.port, Op: op, Err: fmt.Errorf("waiting for the welcome: %w", ctx.Err())}
		case <-c.dead:
			return c.Err()
		case <-t.C:
			if nudge {
				nudge = false
				c.log.Info("grbl no welcome yet, resetting", "port", c.port)
				if err := c.softReset(); err != nil {
					return err
				}
				t.Reset(c.o.welcomeTimeout - wait)
				continue
			}
			return &OpError{Port: c.port, Op: op, Err: ErrNoWelcome, Hint: fmt.Sprintf(
				"nothing greeted the client on %s within %s: check the port, the baud rate (GRBL talks at 115200) and that the controller is powered",
				c.port, c.o.welcomeTimeout)}
		}
	}
}

// pollLoop asks for a status report at the poll rate and watches the link and the lines in
// flight.
func (c *Client) pollLoop() {
	defer c.wg.Done()
	t := time.NewTicker(time.Duration(float64(time.Second) / c.o.pollHz))
	defer t.Stop()
	for {
		select {
		case <-c.dead:
			return
		case now := <-t.C:
			if c.realtime("status", cmdStatus) != nil {
				return
			}
			c.mu.Lock()
			c.asked++
			c.mu.Unlock()
			c.watch(now)
		}
	}
}

// watch fails the link when status reports stopped, and a line the idle controller left
// unanswered too long.
func (c *Client) watch(now time.Time) {
	c.mu.Lock()
	if c.haltCode == 0 && now.Sub(c.lastReport) > c.o.linkTimeout {
		since := now.Sub(c.lastReport).Round(time.Millisecond)
		c.mu.Unlock()
		c.linkLost(fmt.Errorf("no status report for %s", since),
			"the controller stopped answering '?': "+hintLink)
		return
	}
	for _, p := range c.fifo {
		if p.expired {
			continue
		}
		from := p.sent
		if c.lastBusy.After(from) {
			from = c.lastBusy
		}
		if now.Sub(from) > c.o.replyTimeout+p.extra {
			p.expired, p.gone = true, true
			p.finish(&OpError{Port: c.port, Op: p.line, Err: ErrNoReply, Hint: fmt.Sprintf(
				"the controller sat idle %s without answering: its ok was lost; the next call resynchronises", c.o.replyTimeout)})
			c.log.Warn("grbl line unanswered", "port", c.port, "line", p.line)
		}
		break // only the oldest line is being worked on
	}
	c.mu.Unlock()
}
