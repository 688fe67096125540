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
//     returns (a driver returns promptly once cancelled; one that does not within the grace
//     period is stuck, as after a task: the device goes unhealthy and its actor restarts);
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
	}
	// captureDone is sent by the capture's goroutine when Screen returns or panics.
	captureDone struct {
		run   *capturing
		frame ScreenFrame
		err   error
	}
	// captureGraceOver is sent when a cancelled capture has not returned within the grace period.
	captureGraceOver struct{ run *capturing }
)

// capturing is the device actor's capture in flight. Its messages carry it, so that one
// abandoned before a restart is recognised when it ends at last.
type capturing struct {
	cancel context.CancelFunc
	reply  func(ScreenFrame, error)
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
		s.root.Send(sl.pid, captureScreen{maxWidth: m.MaxWidth, timeout: timeout, reply: m.Reply})
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
	cctx, cancel := context.WithTimeout(context.Background(), m.timeout)
	run := &capturing{cancel: cancel, reply: m.reply}
	a.capture = run
	self, root, grace := ctx.Self(), ctx.ActorSystem().Root, a.grace
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
			root.Send(self, done)
		}()
		done.frame, done.err = sc.Screen(cctx, m.maxWidth)
	}()
}

// captureEnded answers the capture and starts the task that waited for it, if any.
func (a *deviceActor) captureEnded(ctx actor.Context, m captureDone) {
	if m.run != a.capture {
		return // abandoned before a restart
	}
	a.capture = nil
	m.run.cancel()
	m.run.reply(m.frame, m.err)
	if p := a.pending; p != nil {
		a.pending = nil
		a.run(ctx, *p)
	}
}

// deferTask holds a task that arrives during a capture until the capture returns, and cancels
// the capture: tasks come first. It reports whether it held the task.
func (a *deviceActor) deferTask(m runTask) bool {
	if a.capture == nil {
		return false
	}
	a.pending = &m
	a.capture.cancel()
	return true
}

// captureStuck handles a capture whose driver ignored cancellation past the grace period, as
// a stuck task is handled: the device is reported unhealthy, the task that waited fails, and
// the actor restarts.
func (a *deviceActor) captureStuck(ctx actor.Context, m captureGraceOver) {
	if m.run != a.capture {
		return
	}
	a.capture = nil
	serial := a.dev.Info().Serial
	m.run.reply(ScreenFrame{}, errDriverStuck)
	ctx.Send(ctx.Parent(), deviceHealth{serial: serial, err: errDriverStuck})
	if p := a.pending; p != nil {
		a.pending = nil
		ctx.Send(ctx.Parent(), taskFinished{serial: serial, id: p.id, at: time.Now(), result: broker.TaskResult{Code: broker.CodeUnhealthy,
			Error: "the driver did not stop taking a screenshot for the console after cancellation; the device is marked unhealthy and its actor restarted"}})
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
