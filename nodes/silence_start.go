package nodes

import (
	"context"

	"github.com/corral-farm/corral/actors"
)

// A task whose caller is asked before it runs (caller.go) must not start once the node has
// heard of its loss: its caller was most likely told so. The question alone cannot see to it:
// the loss may come after the caller said it still waits and before the driver gets the task,
// and a repeated verdict (a second gateway's, on a loss the node answered already) revokes
// nothing that would end it. So from its question until its driver gets it, the task's start is held
// here, and every loss the node hears ends it at once (heardLost): the start and the loss are
// decided under one lock (actors' PendingStart), so a task the loss came first to runs nothing
// and says node_lost, and one its driver got first runs on. A loss heard since the
// scheduler gave the task to its device, before its question, ends it as the question begins.
// Only asked tasks are held: the normal path has no question and nothing here.

// holdStart holds the start of the task whose caller ctx asks about before it runs
// (actors.PendingStartOf) until the task ends, and ends it now if the node heard of its loss
// since the scheduler gave it to its device. A question about a running task holds nothing.
func (s *silence) holdStart(ctx context.Context) {
	p, ok := actors.PendingStartOf(ctx)
	if !ok {
		return
	}
	s.lossMu.Lock()
	defer s.lossMu.Unlock()
	if s.losses > 0 && s.lostAt >= int64(p.Given.Sub(s.base)) {
		p.EndLost()
		return
	}
	id := s.nextStart
	s.nextStart++
	// EndLost leaves a task its driver has, the release below not yet run: it runs on. It
	// decides that under the lock the worker starts the task under, so no loss falls between.
	s.starting[id] = p.EndLost
	// Held until the driver gets the task (then it runs, and a verdict ends it only by the
	// revoke of its lease, as any running task: a repeated one, which revokes nothing, leaves
	// it), or until it ends unstarted.
	release := func() {
		s.lossMu.Lock()
		delete(s.starting, id)
		s.lossMu.Unlock()
	}
	stop := context.AfterFunc(ctx, release)
	go func() {
		select {
		case <-p.Started:
			if stop() {
				release()
			}
		case <-ctx.Done():
		}
	}()
}
