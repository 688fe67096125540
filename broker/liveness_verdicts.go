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

// verdicts runs a Liveness's loss handler on the verdicts it is given, in order, on a
// goroutine of its own while any wait.
type verdicts struct {
	mu      sync.Mutex
	queue   [][2]string // (node, boot) pairs not yet handled
	running bool
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
		v.running = true
		go v.handle(ctx, onLost)
	}
}

// handle calls onLost on each queued verdict, in order, until none is left.
func (v *verdicts) handle(ctx context.Context, onLost func(node, boot string)) {
	for {
		v.mu.Lock()
		if len(v.queue) == 0 || ctx.Err() != nil {
			v.queue, v.running = nil, false
			v.mu.Unlock()
			return
		}
		next := v.queue[0]
		v.queue = v.queue[1:]
		v.mu.Unlock()
		onLost(next[0], next[1])
	}
}
