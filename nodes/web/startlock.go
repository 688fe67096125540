package web

import "context"

// startLock lets one browser start (or stop, or the check before a use) run at a time. Unlike
// a sync.Mutex, a caller waiting for it gives up when its context ends: a task that comes
// while a browser starts waits within its deadline, never past it.
type startLock chan struct{}

func newStartLock() startLock { return make(startLock, 1) }

// lock takes the lock, or fails with ctx's error once ctx ends.
func (l startLock) lock(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tryLock takes the lock if it is free.
func (l startLock) tryLock() bool {
	select {
	case l <- struct{}{}:
		return true
	default:
		return false
	}
}

func (l startLock) unlock() { <-l }
