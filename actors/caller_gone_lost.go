package actors

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A task whose caller is asked before it runs (caller_gone.go) may be overtaken by its node's
// loss: the farm declared the node lost, and told the caller so, while the node asked, or in the
// moment after. Such a task must not start, and its record must say the node was lost, not that
// its caller went: refused node_lost, nothing run. The revoke that follows a first verdict ends
// it so, but a second gateway's verdict on a loss the node answered already revokes nothing,
// and a revoke comes a moment after the node hears of the loss: the driver may get the task in
// between. So the question's context carries the task's pending start (PendingStartOf): when
// the scheduler gave it to its device, and how to end it as the loss. The node ends it as it
// hears of a loss, from the question until its driver gets it. Whether the driver has it and
// whether the loss ends it are decided under one lock (startGate), so exactly one of them wins:
// a loss heard as the worker hands the task over, after its last look at the context, runs
// nothing either.

type pendingStartKey struct{}

// PendingStart is a task whose caller is asked before it runs.
type PendingStart struct {
	// Given is when the scheduler gave the task to its device: a loss heard since may have
	// been told to its caller.
	Given time.Time
	// EndLost ends the task as its node's loss, refused node_lost, if its driver has not got it
	// yet; once it has, EndLost leaves it (the revoke of its lease ends it, lost, as any running
	// task). Safe from any goroutine; the first end of a task is the one kept.
	EndLost func()
	// Started is closed as the task's driver gets it: its start is pending no more, and a
	// verdict heard since ends it only by the usual loss path (the revoke of its lease), as
	// any running task.
	Started <-chan struct{}
}

// PendingStartOf returns the pending start that ctx, the context of a question to a task's
// caller, carries: false for a question about a running task.
func PendingStartOf(ctx context.Context) (PendingStart, bool) {
	p, ok := ctx.Value(pendingStartKey{}).(PendingStart)
	return p, ok
}

// withPendingStart has the question listens asks before t runs carry t's pending start, and
// returns with it the call that starts t as the driver gets it, false if t ended first (by the
// loss, or aborted). Only such a question pays for it: a task that is not asked gets nothing.
func (s *Scheduler) withPendingStart(t *task, listens func(context.Context, broker.TaskRequest) bool) (func(context.Context, broker.TaskRequest) bool, func() bool) {
	node, tool, serial, end, taskCtx, hook := s.cfg.Node, t.req.Tool, t.req.Serial, t.cancel, t.ctx, s.cfg.beforeStart
	g := &startGate{started: make(chan struct{})}
	p := PendingStart{Given: t.started, Started: g.started, EndLost: func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		select {
		case <-g.started: // its driver has it
		default:
			end(&cause{outcome: broker.OutcomeLost, code: broker.CodeNodeLost, msg: fmt.Sprintf(
				"node %s was declared lost by the farm before %s started on %s", node, tool, serial)})
		}
	}}
	ask := func(ctx context.Context, req broker.TaskRequest) bool {
		return listens(context.WithValue(ctx, pendingStartKey{}, p), req)
	}
	start := func() bool {
		if hook != nil {
			hook()
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if taskCtx.Err() != nil {
			return false // it ended as it was handed over: its cause says how
		}
		close(g.started)
		return true
	}
	return ask, start
}

// startGate orders an asked task's start and its node's loss: whichever takes mu first wins.
type startGate struct {
	mu      sync.Mutex
	started chan struct{} // closed as the driver gets the task
}
