package actors

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// A device whose health check fails takes no tasks until a check passes (SCHEDULER.md). Its
// actor checks again after recheckFirst, then twice as long each time up to recheckMax: a
// phone that came back (adb reconnected it, its browser restarted) is online again without
// a node restart, and one that stays broken costs a check every half minute.
const (
	recheckFirst = time.Second
	recheckMax   = 30 * time.Second
)

// Bounds of a health check, in grace periods. A check at start or while unhealthy may take
// checkGraces (a slow phone at boot); the check after a task timed out, probeGraces: its
// answer holds the device's queue, and a hung driver should show unhealthy in seconds, not
// at the end of the next caller's deadline. A check whose driver ignores its timeout too is
// answered as failed at twice its timeout (a loaded host answers late, not never); its
// goroutine is abandoned, and no second check starts until it returns (one hung check at
// most per actor).
const (
	checkGraces = 10
	probeGraces = 3
)

// recheckHealth asks a device actor to check its unhealthy device again.
type recheckHealth struct{}

// IgnoreDeadLetterLogging marks recheckHealth as expected after its actor stopped.
func (recheckHealth) IgnoreDeadLetterLogging() {}

// probeAfterTimeout asks a device actor to check its device at once: a task on it timed out,
// and a driver that did not answer within a deadline may be hung (SIGSTOPped, wedged). The
// scheduler starts nothing on the device until the answer.
type probeAfterTimeout struct{}

// checkOverdue is sent when a check has not answered within twice its timeout.
type checkOverdue struct{ check *healthCheck }

// IgnoreDeadLetterLogging marks checkOverdue as expected after its actor stopped.
func (checkOverdue) IgnoreDeadLetterLogging() {}

// healthCheck is a health check in flight.
type healthCheck struct {
	timeout time.Duration
	overdue *time.Timer
	late    bool // answered as failed for its driver's silence; its goroutine still runs
}

// errNoAnswer is the failure of a check whose driver did not answer in time.
func (c *healthCheck) errNoAnswer() error {
	return fmt.Errorf("the driver did not answer a health check within %s: the device may be hung; it is checked again until it answers", c.timeout)
}

// checkHealth runs the device's health check, bounded by timeout, off the actor's goroutine;
// healthDone brings its answer, or checkOverdue its silence. While a check runs no second
// one starts: its answer comes, and a late one's silence is told again.
func (a *deviceActor) checkHealth(ctx actor.Context, timeout time.Duration) {
	if c := a.checking; c != nil {
		if c.late {
			a.healthChecked(ctx, c.errNoAnswer())
		}
		return
	}
	c := &healthCheck{timeout: timeout}
	a.checking = c
	self, root, dev := ctx.Self(), ctx.ActorSystem().Root, a.dev
	c.overdue = time.AfterFunc(2*timeout, func() { root.Send(self, checkOverdue{check: c}) })
	go func() {
		hctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		root.Send(self, healthDone{check: c, err: dev.Health(hctx)})
	}()
}

// healthAnswered takes a check's answer. One from an earlier incarnation of the actor (before
// a restart) counts only if no check of this one is in flight.
func (a *deviceActor) healthAnswered(ctx actor.Context, m healthDone) {
	switch a.checking {
	case m.check:
		m.check.overdue.Stop()
		a.checking = nil
	case nil:
	default:
		return // the check in flight answers for now
	}
	a.healthChecked(ctx, m.err)
}

// healthOverdue fails a check whose driver did not answer in time.
func (a *deviceActor) healthOverdue(ctx actor.Context, m checkOverdue) {
	if a.checking != m.check {
		return
	}
	m.check.late = true
	a.healthChecked(ctx, m.check.errNoAnswer())
}

// healthChecked tells the scheduler a check's answer and, when it failed, arms the next
// check. One timer at most: a late answer from before a restart replaces it, not adds one.
func (a *deviceActor) healthChecked(ctx actor.Context, err error) {
	ctx.Send(ctx.Parent(), deviceHealth{serial: a.dev.Info().Serial, err: err, checked: true})
	a.stopRecheck()
	if err == nil {
		a.recheckIn = 0
		return
	}
	a.recheckIn = min(max(2*a.recheckIn, recheckFirst), recheckMax)
	self, root := ctx.Self(), ctx.ActorSystem().Root
	a.recheck = time.AfterFunc(a.recheckIn, func() { root.Send(self, recheckHealth{}) })
}

// stopRecheck stops the next check's timer: a restarted actor checks afresh, a stopped one
// not at all.
func (a *deviceActor) stopRecheck() {
	if a.recheck != nil {
		a.recheck.Stop()
		a.recheck = nil
	}
}

// stopChecks stops the actor's health-check timers when it restarts or stops. A check in
// flight still answers; the next incarnation takes that answer only while it has none of its
// own in flight.
func (a *deviceActor) stopChecks() {
	a.stopRecheck()
	if a.checking != nil {
		a.checking.overdue.Stop()
	}
}
