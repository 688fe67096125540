package nodes

import (
	"context"
	"sync"
)

// tracked runs goroutines that must not outlive the node: a question to a lease request's
// caller after a silence, a grant's delivery. Each gets a context that ends as the node stops,
// and stop waits for them, so that none asks or answers for a node that is gone.
type tracked struct {
	mu      sync.Mutex
	ctx     context.Context
	cancel  context.CancelFunc
	stopped bool
	running sync.WaitGroup
}

func newTracked() *tracked {
	ctx, cancel := context.WithCancel(context.Background())
	return &tracked{ctx: ctx, cancel: cancel}
}

// run runs f on a goroutine of its own, with a context that ends as the node stops; false,
// f not run, if it has stopped.
func (t *tracked) run(f func(ctx context.Context)) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	t.running.Go(func() { f(t.ctx) })
	return true
}

// stop ends the goroutines' context and waits for them; nothing runs after it.
func (t *tracked) stop() {
	t.mu.Lock()
	t.stopped = true
	t.cancel()
	t.mu.Unlock()
	t.running.Wait()
}
