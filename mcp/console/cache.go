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
type cached[T any] struct {
	ttl   time.Duration
	fetch func(context.Context) (T, error)

	mu       sync.Mutex
	val      T
	err      error
	at       time.Time     // of the last fetch; zero before the first
	inflight chan struct{} // closed when the fetch under way ends
}

func newCached[T any](ttl time.Duration, fetch func(context.Context) (T, error)) *cached[T] {
	return &cached[T]{ttl: ttl, fetch: fetch}
}

// get returns the value fetched last (at most ttl ago, or being fetched again), and the error
// of that fetch. Before the first value, it waits for the first fetch.
func (c *cached[T]) get(ctx context.Context) (T, error) {
	c.mu.Lock()
	if time.Since(c.at) >= c.ttl && c.inflight == nil {
		c.inflight = make(chan struct{})
		go c.refresh(context.WithoutCancel(ctx), c.inflight)
	}
	first, wait := c.at.IsZero(), c.inflight
	c.mu.Unlock()
	if first {
		select {
		case <-wait:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.val, c.err
}

// refresh fetches, keeps the value (the one before it, should the fetch fail) and closes done.
func (c *cached[T]) refresh(ctx context.Context, done chan struct{}) {
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	v, err := c.fetch(fctx)
	cancel()
	c.mu.Lock()
	if err == nil {
		c.val = v
	}
	c.err, c.at, c.inflight = err, time.Now(), nil
	c.mu.Unlock()
	close(done)
}
