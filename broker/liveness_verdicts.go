package broker

import (
	"context"
	"sync"
)

// A loss verdict's handler (a reaping gateway's nodeLost) writes to NATS, each write waiting
// up to reapWait for its answer: a stall that begins right after a verdict held the liveness
// loop in them for reapWait per write (15 s for a node of one device), and no check said
// meanwhile that the server does not answer, nor dropped the stalled connection
// (liveness_stall.go). So Run hands its verdicts to verdicts, which runs the handler beside
// the checks, one verdict at a time in the order they came, as Run did.
//
// The handler runs within Run's context (handlerContext) and Run waits for it on its way out:
// a gateway stopping must not go on writing a verdict into a connection it is closing.

// verdicts runs a Liveness's loss handler on the verdicts it is given, in order, on a
// goroutine of its own while any wait.
type verdicts struct {
	mu      sync.Mutex
	queue   [][2]string // (node, boot) pairs not yet handled
	running bool
	// ctx is Run's context while the goroutine runs (nil otherwise): the handler's writes end
	// with it.
	ctx context.Context
	// done counts the goroutine; Add in add and Wait in wait are both Run's, so never concurrent.
	done sync.WaitGroup
}

// add queues lost for onLost, starting the goroutine that handles them unless it runs. Once
// ctx ends (Run's), the verdicts still queued are not handled: the process is stopping.
func (v *verdicts) add(ctx context.Context, lost [][2]string, onLost func(node, boot string)) {
	if len(lost) == 0 || onLost == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.queue = append(v.queue, lost...)
	if !v.running {
		v.running, v.ctx = true, ctx
		v.done.Add(1)
		go v.handle(ctx, onLost)
	}
}

// handle calls onLost on each queued verdict, in order, until none is left.
func (v *verdicts) handle(ctx context.Context, onLost func(node, boot string)) {
	defer v.done.Done()
	for {
		v.mu.Lock()
		if len(v.queue) == 0 || ctx.Err() != nil {
			v.queue, v.running, v.ctx = nil, false, nil
			v.mu.Unlock()
			return
		}
		next := v.queue[0]
		v.queue = v.queue[1:]
		v.mu.Unlock()
		onLost(next[0], next[1])
	}
}

// wait returns once the goroutine handling verdicts, if any, has ended.
func (v *verdicts) wait() { v.done.Wait() }

// context is the context the handler runs within: Run's while a verdict is handled, else
// (the handler called directly) one that never ends.
func (v *verdicts) context() context.Context {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ctx == nil {
		return context.Background()
	}
	return v.ctx
}
