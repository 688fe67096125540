package console

import (
	"context"
	"sync"
	"time"
)

// fetchTimeout bounds one fetch behind a cache: its callers share it, so no one caller's
// context may cut it short.
const fetchTimeout = 3 * time.Second

// cached keeps what fetch returned for ttl, and lets concurrent callers share one fetch: every
// browser looking at the console costs the farm one request a ttl, not one each. Once it has
// a value, a caller never waits: a stale value is returned at once while a fresh one is
// fetched behind it (the grid's long polls look every 50 ms and must not stall on a node).
// The exception is a value expired by an action that changed it: the next callers wait for a
// fetch begun after the expiry.
type cached[T any] struct {
	ttl   time.Duration
	fetch func(context.Context) (T, error)

	mu       sync.Mutex
	val      T
	err      error
	at       time.Time     // of the last fetch; zero before the first
	gen      uint64        // expiries so far
	valGen   uint64        // gen when the fetch of val began
	inflight chan struct{} // closed when the fetch under way ends
}

func newCached[T any](ttl time.Duration, fetch func(context.Context) (T, error)) *cached[T] {
	return &cached[T]{ttl: ttl, fetch: fetch}
}

// get returns the value fetched last (at most ttl ago, or being fetched again), and the error
// of that fetch. Before the first value, or after an expiry, it waits for a fetch.
func (c *cached[T]) get(ctx context.Context) (T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.at.IsZero() || c.valGen < c.gen {
		if c.inflight == nil {
			c.start(ctx)
		}
		wait := c.inflight
		c.mu.Unlock()
		select {
		case <-wait:
			c.mu.Lock()
		case <-ctx.Done():
			c.mu.Lock()
			var zero T
			return zero, ctx.Err()
		}
	}
	if time.Since(c.at) >= c.ttl && c.inflight == nil {
		c.start(ctx)
	}
	return c.val, c.err
}

// expire makes the next get wait for a value fetched from now on: after an action that changed
// it, a page must not be shown the value from before.
func (c *cached[T]) expire() {
	c.mu.Lock()
	c.gen++
	c.mu.Unlock()
}

// start begins a fetch; callers hold c.mu.
func (c *cached[T]) start(ctx context.Context) {
	c.inflight = make(chan struct{})
	go c.refresh(context.WithoutCancel(ctx), c.gen, c.inflight)
}

// refresh fetches, keeps the value (the one before it, should the fetch fail) and closes done.
func (c *cached[T]) refresh(ctx context.Context, gen uint64, done chan struct{}) {
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	v, err := c.fetch(fctx)
	cancel()
	c.mu.Lock()
	if err == nil {
		c.val = v
	}
	c.err, c.at, c.valGen, c.inflight = err, time.Now(), gen, nil
	c.mu.Unlock()
	close(done)
}
