package console

import (
	"context"
	"sync"
	"time"
)

// fetchTimeout bounds one fetch behind a cache: its callers share it, so no one caller's
// context may cut it short.
const fetchTimeout = 3 * time.Second

// maxStale bounds how old a value get returns may be: the pages' refresh (or twice the cache's
// ttl, if longer: a value read at every refresh is renewed behind its readers, who never wait).
// Without it the first read after a quiet spell showed whatever was fetched last, however long
// ago.
const maxStale = 2 * time.Second

// cached keeps what fetch returned for ttl, and lets concurrent callers share one fetch: every
// browser looking at the console costs the farm one request a ttl, not one each. Once it has
// a value, a caller of version never waits: a stale value is returned at once while a fresh one
// is fetched behind it (the grid's long polls look every 50 ms and must not stall on a node).
// get does the same for a value less than maxStale old; an older one (the first read after a
// quiet spell) it does not return, but waits for the fetch. So does a value expired by an action
// that changed it: the next callers wait for a fetch begun after the expiry. It counts the fetches that brought something new (same says
// what is), so that a caller can tell a change without comparing values itself: the grid's
// long poll rebuilds the grid only when its inputs moved.
type cached[T any] struct {
	ttl   time.Duration
	fetch func(context.Context) (T, error)
	same  func(a, b T) bool // nil: every fetched value is new

	maxStale time.Duration
	now      func() time.Time // the clock (tests set another)

	mu       sync.Mutex
	val      T
	err      error
	at       time.Time     // of the last fetch; zero before the first
	gen      uint64        // expiries so far
	valGen   uint64        // gen when the fetch of val began
	inflight chan struct{} // closed when the fetch under way ends
	changes  uint64        // fetches whose value or error differed from the one before
}

func newCached[T any](ttl time.Duration, fetch func(context.Context) (T, error)) *cached[T] {
	return &cached[T]{ttl: ttl, fetch: fetch, maxStale: max(maxStale, 2*ttl), now: time.Now}
}

// comparing has a fetch whose value is the same as the one before (by same) count as no
// change: version stays.
func (c *cached[T]) comparing(same func(a, b T) bool) *cached[T] {
	c.same = same
	return c
}

// get returns the value fetched last (at most ttl ago, or being fetched again), and the error
// of that fetch. Before the first value, after an expiry, or when the value is maxStale old, it
// waits for a fetch.
func (c *cached[T]) get(ctx context.Context) (T, error) {
	v, _, err := c.getVersion(ctx, true)
	return v, err
}

// version is what get would return as a number that moves only when that changes (by same,
// and the error's text), fetching as get does.
func (c *cached[T]) version(ctx context.Context) (uint64, error) {
	_, n, err := c.getVersion(ctx, false)
	return n, err
}

// getVersion is get, with the count of changes its value and error are the latest of; bounded:
// a value maxStale old is not returned but fetched again.
func (c *cached[T]) getVersion(ctx context.Context, bounded bool) (T, uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.at.IsZero() || c.valGen < c.gen || bounded && c.now().Sub(c.at) >= c.maxStale {
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
			return zero, c.changes, ctx.Err()
		}
	}
	if c.now().Sub(c.at) >= c.ttl && c.inflight == nil {
		c.start(ctx)
	}
	return c.val, c.changes, c.err
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
	if c.changedBy(v, err) {
		c.changes++
	}
	if err == nil {
		c.val = v
	}
	c.err, c.at, c.valGen, c.inflight = err, c.now(), gen, nil
	c.mu.Unlock()
	close(done)
}

// changedBy says whether a fetch that returned v and err brings something new: a first value,
// another value, or another error (a failed fetch keeps the value before it); c.mu is held.
func (c *cached[T]) changedBy(v T, err error) bool {
	if errText(err) != errText(c.err) {
		return true
	}
	return err == nil && (c.at.IsZero() || c.same == nil || !c.same(c.val, v))
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
