package actors

import (
	"context"
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

// recheckHealth asks a device actor to check its unhealthy device again.
type recheckHealth struct{}

// IgnoreDeadLetterLogging marks recheckHealth as expected after its actor stopped.
func (recheckHealth) IgnoreDeadLetterLogging() {}

// checkHealth runs the device's health check off the actor's goroutine, bounded by ten
// graces; healthDone brings its answer.
func (a *deviceActor) checkHealth(ctx actor.Context) {
	self, root := ctx.Self(), ctx.ActorSystem().Root
	dev, timeout := a.dev, a.grace*10
	go func() {
		hctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		root.Send(self, healthDone{err: dev.Health(hctx)})
	}()
}

// healthChecked tells the scheduler a check's answer and, when it failed, arms the next
// check. One timer at most: a late answer from before a restart replaces it, not adds one.
func (a *deviceActor) healthChecked(ctx actor.Context, err error) {
	ctx.Send(ctx.Parent(), deviceHealth{serial: a.dev.Info().Serial, err: err})
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
