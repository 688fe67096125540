package actors

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/corral-farm/corral/broker"
)

// Device is what a device actor drives: the node's binding of a driver to its ops.
type Device interface {
	Info() broker.DeviceEntry
	// Deadline returns how long a task of tool may run: its default, or askedMS within the cap.
	// It fails for a tool the node does not know.
	Deadline(tool string, askedMS int64) (time.Duration, error)
	// Execute runs the task and fills in Outcome, Code, Error, Data, Text and Image. It returns
	// promptly once ctx is done, or the device is marked unhealthy.
	Execute(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) broker.TaskResult
	// Health answers whether the device can take work.
	Health(ctx context.Context) error
}

// LeaseWatcher is a Device that wants to know when an explicit lease of it is granted (held)
// and when it ends (released, expired or revoked): to keep what its holder builds up however
// long the holder thinks between calls (an elastic browser does not stop for idleness while
// leased), and to wipe what the holder left before the next task (device.Resetter). Leased
// must return at once: the scheduler calls it from its own goroutine.
type LeaseWatcher interface {
	Leased(held bool)
}

// Messages of the device actor.
type (
	// runTask asks the device actor to run a task under ctx.
	runTask struct {
		id       string
		req      broker.TaskRequest
		ctx      context.Context
		progress func(broker.Progress)
		// listening, set for a task that waited in the queue, is asked first (caller_gone.go).
		listening func(context.Context, broker.TaskRequest) bool
		// started, set with listening, is called as the driver gets the task: its start is no
		// longer pending (PendingStart.Started). False: the task ended first (its node's loss,
		// an abort), and its driver must not get it.
		started func() bool
	}
	// workDone is sent by the worker goroutine when Execute returns or panics. Its result went
	// to the scheduler (run); a panic has none.
	workDone struct {
		id    string
		panic any
		stack []byte
		at    time.Time // when the driver returned
	}
	// graceOver is sent when a cancelled task has not returned within the grace period.
	graceOver struct{ id string }
	// healthDone carries the result of a health check: the one run after (re)start, a
	// recheck of an unhealthy device, or the probe after a task timed out (health.go).
	healthDone struct {
		check *healthCheck
		err   error
	}
)

// Messages from a device actor to its scheduler.
type (
	// taskFinished reports the end of a task; stuck is set when the driver ignored cancellation.
	taskFinished struct {
		serial    string
		id        string
		result    broker.TaskResult
		at        time.Time // when the driver returned: the device was free from then on
		unstarted bool      // the driver never got it: its caller was gone, or it ended while asked
	}
	// deviceHealth reports the device's health after a (re)start or a failure; checked is
	// set when it is the answer of the actor's health check (health.go).
	deviceHealth struct {
		serial  string
		err     error
		checked bool
	}
)

// errDriverStuck marks a task whose driver ignored cancellation past the grace period.
var errDriverStuck = errors.New("the driver did not stop after cancellation")

// deviceActor runs one device's tasks, one at a time, on its worker goroutine.
type deviceActor struct {
	dev     Device
	grace   time.Duration
	current string     // id of the running task, "" when idle
	capture *capturing // a console's look at the screen in flight (capture.go)
	pending *runTask   // a task waiting for that look to end
	// calls are the device's captures and tasks in its driver, kept across restarts
	// (capture_calls.go).
	calls *screenCalls
	// work feeds this incarnation's worker. It lives from task to task: a goroutine per
	// task grew its stack again each time (the driver, then this actor and the scheduler,
	// which run on it), a fifth of the CPU of a short task. A restart closes it; a worker
	// stuck in a driver that ignored cancellation ends once the driver returns.
	work chan func()
	// recheck is the timer of the next health check while unhealthy, recheckIn its delay;
	// checking is the check in flight (health.go).
	recheck   *time.Timer
	recheckIn time.Duration
	checking  *healthCheck
}

// Receive handles the device actor's messages.
func (a *deviceActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		a.work = make(chan func(), 1)
		go func(work <-chan func()) {
			for task := range work {
				task()
			}
		}(a.work)
		a.checkHealth(ctx, checkGraces*a.grace)
	case *actor.Restarting, *actor.Stopping:
		if a.work != nil { // nil only if it stops before it started
			close(a.work)
			a.work = nil
		}
		a.stopChecks()
	case healthDone:
		a.healthAnswered(ctx, m)
	case checkOverdue:
		a.healthOverdue(ctx, m)
	case recheckHealth:
		a.checkHealth(ctx, checkGraces*a.grace)
	case probeAfterTimeout:
		a.checkHealth(ctx, probeGraces*a.grace)
	case haltCheck:
		a.checkHalt(ctx)
	case runTask:
		if !a.deferTask(ctx, m) {
			a.run(ctx, m)
		}
	case captureScreen:
		if a.checking != nil { // the driver is being checked: one operation at a time
			m.reply(ScreenFrame{}, ErrCaptureBusy)
			return
		}
		a.startCapture(ctx, m)
	case captureDone:
		a.captureEnded(ctx, m)
	case captureGraceOver:
		a.captureLate(ctx, m)
	case captureOverdue:
		a.captureOverdueOver(ctx, m)
	case workDone:
		if m.id != a.current {
			return // a task abandoned before a restart finished at last
		}
		a.current = ""
		if m.panic != nil {
			res := broker.TaskResult{Outcome: broker.OutcomeFailed, Code: broker.CodePanic}
			res.Error = fmt.Sprintf("the driver panicked (%v); the device's actor was restarted, try again", m.panic)
			ctx.Send(ctx.Parent(), taskFinished{serial: a.dev.Info().Serial, id: m.id, result: res, at: m.at})
			panic(fmt.Sprintf("device %s: driver panic: %v\n%s", a.dev.Info().Serial, m.panic, m.stack))
		}
		// The worker told the scheduler itself (run).
	case graceOver:
		if m.id != a.current {
			return
		}
		a.current = ""
		serial := a.dev.Info().Serial
		ctx.Send(ctx.Parent(), deviceHealth{serial: serial, err: errDriverStuck})
		ctx.Send(ctx.Parent(), taskFinished{serial: serial, id: m.id, at: time.Now(), result: broker.TaskResult{Code: broker.CodeUnhealthy,
			Error: "the driver did not stop after cancellation; the device is marked unhealthy and its actor restarted"}})
		panic(fmt.Sprintf("device %s: %v (task %s)", serial, errDriverStuck, m.id))
	}
}

// run starts the task on the worker and arms the grace timer for when it is cancelled.
func (a *deviceActor) run(ctx actor.Context, m runTask) {
	a.current = m.id
	self, parent, root := ctx.Self(), ctx.Parent(), ctx.ActorSystem().Root
	dev, grace, serial, calls := a.dev, a.grace, a.dev.Info().Serial, a.calls
	// When the task's context ends (abort, deadline) the driver has grace to return.
	stopGrace := context.AfterFunc(m.ctx, func() {
		time.AfterFunc(grace, func() { root.Send(self, graceOver{id: m.id}) })
	})
	task := func() {
		done := workDone{id: m.id}
		var result broker.TaskResult
		unstarted := true
		defer func() {
			if p := recover(); p != nil {
				done.panic, done.stack = p, debug.Stack()
			}
			stopGrace()
			done.at = time.Now()
			root.Send(self, done)
			// A result goes to the scheduler straight away, a hop sooner than through this
			// actor; the actor hears of it first (its mailbox is in order), so the next task
			// finds it idle. A panic goes through the actor, which restarts.
			if done.panic == nil {
				root.Send(parent, taskFinished{serial: serial, id: m.id, result: result, at: done.at, unstarted: unstarted})
			}
		}()
		// No capture beside the driver's call, after a restart too (capture_calls.go); it
		// ends before the device is told free.
		defer calls.task()()
		if m.listening != nil {
			listening := m.listening(m.ctx, m.req)
			if m.ctx.Err() != nil {
				return // it ended while its caller was asked (aborted, its node lost): its cause says so
			}
			if !listening {
				result = callerGone(serial, m.req.Tool)
				return
			}
		}
		if m.started != nil && !m.started() {
			return // it ended as it was handed over (its node's loss): its cause says so
		}
		unstarted = false
		result = dev.Execute(m.ctx, m.req, m.progress)
	}
	select {
	case a.work <- task:
	default:
		go task() // not expected: the scheduler gives a device one task at a time
	}
}
