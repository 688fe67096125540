package actors

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/corral-farm/corral/broker"
)

// Captures: a look at a device's screen for the console's live screens, outside any task.
//
// A capture takes no lease, joins no queue and moves no epoch: it is not a task, and a holder's
// lease and deadlines are as they would be without it. But it does use the driver, and a
// driver is promised that no two operations of its device run at once (docs/adding-a-driver.md:
// "no locks needed for exclusion"; a simulated phone counts overlaps). So captures go through
// the device actor, which serialises them with tasks, tasks first:
//
//   - while a task runs, a capture is skipped at once (ErrCaptureBusy): the console shows the
//     last frame and the running task from the registry until the device is free again;
//   - a task that arrives during a capture cancels it, and starts as soon as the driver
//     returns. A driver returns promptly once cancelled, but on a starved host (load 12 on 2
//     cores) the capture's goroutine may not even be scheduled within the grace period, so
//     the task waits longer than a running task's driver is given: until the grace period
//     after its own context ends (its deadline or an abort: the bound a running task has), and
//     captureWaitGraces grace periods after its arrival at most. A driver still busy then is
//     stuck, as after a task: the task fails unhealthy, the device goes unhealthy and its
//     actor restarts. The task's deadline runs while it waits, so it holds as for a running
//     task, and a hung driver holds the device for a bounded time;
//   - a capture that outlives its timeout with no task waiting is slow, not stuck: a screenshot
//     is read-only, and a loaded host answers late (adb under load). Its caller is answered
//     (errCaptureSlow) after the grace period, and the device stays busy for captures until the
//     driver returns. Still running captureOverdueAfter that answer, it is abandoned: counted
//     (corral_console_captures_abandoned_total) and logged once, and the device is neither
//     marked unhealthy nor restarted, as nobody waits for it (a restart on a loaded node only
//     added a health check and a new capture to the load). It is stuck only once a task comes
//     and has waited its bound above, or if it is still running captureHungGraces grace
//     periods after it was abandoned;
//   - a stuck capture's or task's driver call is abandoned at the actor's restart, not
//     forgotten: until it returns no capture of the device starts (capture_calls.go); the
//     restarted actor's health check does not wait for it (SCHEDULER.md rule 6), so the
//     device takes tasks again beside a hung call;
//   - a frame the driver returns after its capture was answered (slow, or stuck and its actor
//     restarted) is not thrown away but handed to the caller's Late: on a loaded node (2
//     cores, load 22, -race) every look at six watched phones took longer than its timeout
//     and the grace period, and a console that dropped late frames showed no screen at all;
//   - the frame is scaled and encoded while the driver's pixels arrive (Android streams its
//     framebuffer) or right after, so a task waits at most for the end of an encode.
//
// The scheduler skips captures of devices that are not online (offline, unhealthy or starting),
// so a console never pokes a driver under repair; a halted one is looked at, as it takes
// tasks (halt.go): a person judges it by its screen.

// Screener is a Device whose screen can be looked at outside tasks. The node's devices are.
type Screener interface {
	// Screen returns the screen as a JPEG at most maxWidth pixels wide.
	Screen(ctx context.Context, maxWidth int) (ScreenFrame, error)
}

// ScreenFrame is one look at a screen: a JPEG and its size.
type ScreenFrame struct {
	JPEG          []byte
	Width, Height int
}

// CaptureScreen asks for one look at a device's screen. Reply gets the frame or why there is
// none; it must not block (it is called from the actors' goroutines). A device removed during
// the capture may never answer: callers wait with a timeout.
type CaptureScreen struct {
	Serial   string
	MaxWidth int
	// Timeout bounds the driver's Screenshot (DefaultCaptureTimeout if zero).
	Timeout time.Duration
	Reply   func(ScreenFrame, error)
	// Late, if set, gets the frame of a capture whose driver returned it after Reply was
	// answered without it (slow, or stuck): a late look is better than none. Called once at
	// most, from the actors' goroutines: it must not block.
	Late func(ScreenFrame)
}

// DefaultCaptureTimeout bounds one capture.
const DefaultCaptureTimeout = 5 * time.Second

// ErrCaptureBusy is the answer to a capture while a task runs on the device: try again later.
var ErrCaptureBusy = errors.New("a task runs on the device; its screen is looked at between tasks")

// ErrCaptureUnsupported is the answer for a device that cannot be looked at outside tasks.
var ErrCaptureUnsupported = errors.New("the device's screen cannot be captured outside tasks")

// Messages of a device actor about captures.
type (
	// captureScreen asks the device actor for one capture.
	captureScreen struct {
		maxWidth int
		timeout  time.Duration
		reply    func(ScreenFrame, error)
		late     func(ScreenFrame)
	}
	// captureDone is sent by the capture's goroutine when Screen returns or panics.
	captureDone struct {
		run   *capturing
		frame ScreenFrame
		err   error
	}
	// captureGraceOver is sent when a capture has not returned within the grace period after
	// it was cancelled (its timeout, or a task) or, task set, when the task waiting for it has
	// waited as long as it may (captureWaitFor).
	captureGraceOver struct {
		run  *capturing
		task bool
	}
	// captureOverdue is sent when a slow capture has not returned captureOverdueAfter its slow
	// answer (it is abandoned) or, hung set, captureHungGraces grace periods after that.
	captureOverdue struct {
		run  *capturing
		hung bool
	}
)

// errCaptureSlow answers a capture whose driver has not returned past its timeout and the grace
// period, with no task waiting: the device is slow, not stuck (yet).
var errCaptureSlow = errors.New("the driver is slow to return a screenshot, past the capture's timeout; the screen is looked at again once it returns")

// captureOverdueAfter is how long a slow capture, with no task waiting, is waited for after it
// was answered as slow before the driver counts as stuck: its timeout again, and at least
// DefaultCaptureTimeout. A task that arrives meanwhile waits as captureWaitFor says.
func captureOverdueAfter(timeout time.Duration) time.Duration {
	return max(timeout, DefaultCaptureTimeout)
}

// captureHungGraces is how long, in grace periods, a capture abandoned with no task waiting
// (captureOverdueOver) may stay in its driver before the driver counts as hung: a minute at the
// default grace period, well past any slow screenshot seen on a loaded node. A task that
// arrives meanwhile finds a hung driver sooner (captureWaitGraces).
const captureHungGraces = 60

// captureWaitGraces bounds, in grace periods, how long a task that arrived during a capture
// waits for the cancelled capture's driver: long enough for a starved host to schedule it
// (a cancelled capture missed one grace period under load 12 on 2 cores), short enough that a
// hung driver is found in seconds, not at the end of a ten-minute task's deadline.
const captureWaitGraces = 10

// captureWaitFor arms the end of a task's wait for the capture it cancelled: the grace period
// after the task's context ends (its deadline or an abort, as a running task's driver is
// given), and captureWaitGraces grace periods after its arrival at the latest, whichever comes
// first. Each sends captureGraceOver with task set; stop disarms them (one already sent names
// a capture that has ended, and is ignored).
func captureWaitFor(task context.Context, grace time.Duration, over func()) (stop func()) {
	bound := time.AfterFunc(captureWaitGraces*grace, over)
	stopEnd := context.AfterFunc(task, func() { time.AfterFunc(grace, over) })
	return func() { bound.Stop(); stopEnd() }
}

// capturing is the device actor's capture in flight. Its messages carry it, so that one
// abandoned before a restart is recognised when it ends at last.
type capturing struct {
	cancel  context.CancelFunc
	reply   func(ScreenFrame, error)
	late    func(ScreenFrame) // CaptureScreen.Late
	timeout time.Duration
	started time.Time
	// answered is set once reply was called (a slow capture is answered before it returns).
	answered bool
	// taskArrived is when a task came to wait for the capture; stopWait disarms that task's
	// bound (captureWaitFor).
	taskArrived time.Time
	stopWait    func()
}

// answer replies to the capture's caller, once.
func (c *capturing) answer(f ScreenFrame, err error) {
	if !c.answered {
		c.answered = true
		c.reply(f, err)
	}
}

// ended hands the driver's answer to the caller: as the reply if none was given yet, else its
// frame to late, whether the device was found slow or stuck meanwhile (its health is judged as
// before; its picture is kept).
func (c *capturing) ended(f ScreenFrame, err error) {
	switch {
	case !c.answered:
		c.answer(f, err)
	case err == nil && c.late != nil:
		c.late(f)
	}
}

// capture hands a capture to the device's actor if the device is online and idle.
func (s *Scheduler) capture(m CaptureScreen) {
	sl, ok := s.slots[m.Serial]
	switch {
	case !ok:
		m.Reply(ScreenFrame{}, fmt.Errorf("no device %q on node %s", m.Serial, s.cfg.Node))
	case !sl.takesTasks() || sl.pid == nil:
		m.Reply(ScreenFrame{}, fmt.Errorf("device %s is %s (%s): its screen is not looked at until it is online", m.Serial, sl.health, sl.reason))
	case sl.running != nil:
		m.Reply(ScreenFrame{}, ErrCaptureBusy)
	default:
		timeout := m.Timeout
		if timeout <= 0 {
			timeout = DefaultCaptureTimeout
		}
		s.root.Send(sl.pid, captureScreen{maxWidth: m.MaxWidth, timeout: timeout, reply: m.Reply, late: m.Late})
	}
}

// startCapture runs a capture in a goroutine if the device actor is idle.
func (a *deviceActor) startCapture(ctx actor.Context, m captureScreen) {
	sc, ok := a.dev.(Screener)
	switch {
	case a.current != "" || a.pending != nil || a.capture != nil:
		m.reply(ScreenFrame{}, ErrCaptureBusy)
		return
	case !ok:
		m.reply(ScreenFrame{}, ErrCaptureUnsupported)
		return
	}
	if err := a.calls.start(); err != nil { // one abandoned at a restart still runs (capture_calls.go)
		m.reply(ScreenFrame{}, err)
		return
	}
	cctx, cancel := context.WithTimeout(context.Background(), m.timeout)
	run := &capturing{cancel: cancel, reply: m.reply, late: m.late, timeout: m.timeout, started: time.Now()}
	a.capture = run
	self, root, grace, calls := ctx.Self(), ctx.ActorSystem().Root, a.grace, a.calls
	stopGrace := context.AfterFunc(cctx, func() {
		time.AfterFunc(grace, func() { root.Send(self, captureGraceOver{run: run}) })
	})
	go func() {
		done := captureDone{run: run}
		defer func() {
			if p := recover(); p != nil {
				done.frame, done.err = ScreenFrame{}, fmt.Errorf("the driver panicked taking a screenshot: %v", p)
			}
			stopGrace()
			calls.end()
			root.Send(self, done)
		}()
		done.frame, done.err = sc.Screen(cctx, m.maxWidth)
	}()
}

// captureEnded answers the capture (or hands its late frame over) and starts the task that
// waited for it, if any.
func (a *deviceActor) captureEnded(ctx actor.Context, m captureDone) {
	if m.run != a.capture { // abandoned before a restart: its frame is still the newest look
		m.run.ended(m.frame, m.err)
		return
	}
	a.capture = nil
	m.run.cancel()
	if m.run.stopWait != nil {
		m.run.stopWait()
	}
	err := m.err
	if err != nil && a.pending != nil { // cut short for the task that waits: busy, as a capture during a task
		err = fmt.Errorf("%w (%w)", ErrCaptureBusy, err)
	}
	m.run.ended(m.frame, err)
	if p := a.pending; p != nil {
		a.pending = nil
		a.run(ctx, *p)
	}
}

// deferTask holds a task that arrives during a capture until the capture returns, and cancels
// the capture: tasks come first. The driver has until the task's bound (captureWaitFor) to
// return, counted from the task's arrival even if the capture was cancelled before (its
// timeout). It reports whether it held the task.
func (a *deviceActor) deferTask(ctx actor.Context, m runTask) bool {
	run := a.capture
	if run == nil {
		return false
	}
	a.pending = &m
	run.cancel()
	self, root := ctx.Self(), ctx.ActorSystem().Root
	run.taskArrived = time.Now()
	run.stopWait = captureWaitFor(m.ctx, a.grace, func() { root.Send(self, captureGraceOver{run: run, task: true}) })
	return true
}

// captureLate handles a capture still running the grace period after its cancellation, or
// when the task waiting for it has waited as long as it may: stuck then, slow when no task
// waits.
func (a *deviceActor) captureLate(ctx actor.Context, m captureGraceOver) {
	switch {
	case m.run != a.capture:
		// It returned meanwhile, or was abandoned before a restart.
	case m.task:
		a.captureStuck(ctx, m.run)
	case a.pending == nil && !m.run.answered:
		a.captureSlow(ctx, m.run)
	}
	// A task waits: its bound decides (captureWaitFor).
}

// captureSlow answers a capture past its timeout that no task waits for, and keeps waiting for
// its driver: the device stays busy for captures, and a task that arrives waits for it.
func (a *deviceActor) captureSlow(ctx actor.Context, run *capturing) {
	run.answer(ScreenFrame{}, fmt.Errorf("%w (timeout %s, waited %s more)", errCaptureSlow, run.timeout, a.grace))
	self, root := ctx.Self(), ctx.ActorSystem().Root
	time.AfterFunc(captureOverdueAfter(run.timeout), func() { root.Send(self, captureOverdue{run: run}) })
}

// captureOverdueOver handles a slow capture still running captureOverdueAfter its slow answer,
// no task waiting: it is abandoned, counted and logged, not taken for a hung driver. The
// device stays busy for captures, and a task that comes waits for it (captureWaitFor). Still
// running captureHungGraces grace periods later (hung), it is stuck. While a task waits, the
// task's bound decides.
func (a *deviceActor) captureOverdueOver(ctx actor.Context, m captureOverdue) {
	switch {
	case m.run != a.capture || a.pending != nil:
	case m.hung:
		a.captureStuck(ctx, m.run)
	default:
		a.calls.abandon(a.dev.Info().Serial, m.run.timeout, time.Since(m.run.started))
		self, root, run := ctx.Self(), ctx.ActorSystem().Root, m.run
		time.AfterFunc(captureHungGraces*a.grace, func() { root.Send(self, captureOverdue{run: run, hung: true}) })
	}
}

// captureStuck handles a capture whose driver ignored cancellation, as a stuck task is
// handled: the device is reported unhealthy, the task that waited fails, and the actor
// restarts.
func (a *deviceActor) captureStuck(ctx actor.Context, run *capturing) {
	a.capture = nil
	serial := a.dev.Info().Serial
	run.answer(ScreenFrame{}, errDriverStuck)
	ctx.Send(ctx.Parent(), deviceHealth{serial: serial, err: errDriverStuck})
	if p := a.pending; p != nil {
		a.pending = nil
		waited := time.Since(run.taskArrived).Round(time.Millisecond)
		ctx.Send(ctx.Parent(), taskFinished{serial: serial, id: p.id, at: time.Now(), result: broker.TaskResult{Code: broker.CodeUnhealthy,
			Error: fmt.Sprintf("the driver did not return from a screenshot for the console, cancelled when this task arrived %s ago; the device is marked unhealthy and its actor restarted, retry once it is online or pick another device", waited)}})
	}
	panic(fmt.Sprintf("device %s: %v (a console capture)", serial, errDriverStuck))
}

// A capture's reports to a device actor that stopped meanwhile (its device removed) are
// expected dead letters, as a task's are (deadletters.go): not logged.

// IgnoreDeadLetterLogging marks captureScreen as expected after its actor stopped.
func (captureScreen) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging marks captureDone as expected after its actor stopped.
func (captureDone) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging marks captureGraceOver as expected after its actor stopped.
func (captureGraceOver) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging marks captureOverdue as expected after its actor stopped.
func (captureOverdue) IgnoreDeadLetterLogging() {}
