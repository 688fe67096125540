package camera

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sync"
	"time"
)

// Source is a camera: Frame gives a picture, Close lets the camera go.
type Source interface {
	// Frame is a frame captured after the call (or within the source's maximum age). It
	// waits for one until ctx ends, and fails at once when the camera is known to be down.
	Frame(ctx context.Context) (image.Image, error)
	// Close stops the camera; Frame fails with ErrClosed afterwards.
	Close() error
}

var (
	// ErrClosed says that the source was closed.
	ErrClosed = errors.New("camera: closed")
	// ErrDown says that the camera is not sending frames now (disconnected, stopped,
	// unplugged); the error wrapping it says why and what to check.
	ErrDown = errors.New("camera: down")
	// ErrBadFrame says that a frame could not be read: not a JPEG, truncated, too big.
	ErrBadFrame = errors.New("camera: bad frame")
)

// latest holds the newest frame a capture loop has read (of type T: encoded bytes, a raw
// buffer), or why there is none, and lets Frame wait for a newer one.
type latest[T any] struct {
	mu      sync.Mutex
	v       T
	seq     uint64
	at      time.Time
	down    error // why the camera is down; nil while it streams
	closed  bool
	changed chan struct{} // closed and replaced at every change
}

func newLatest[T any]() *latest[T] {
	return &latest[T]{changed: make(chan struct{})}
}

func (l *latest[T]) notifyLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// put records a new frame.
func (l *latest[T]) put(v T, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.v, l.at, l.down = v, at, nil
	l.seq++
	l.notifyLocked()
}

// fail records that the camera is down, and why.
func (l *latest[T]) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.down = err
	l.notifyLocked()
}

// close wakes every waiter with ErrClosed.
func (l *latest[T]) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		l.notifyLocked()
	}
}

// next is a frame newer than the call, or the latest if it is younger than maxAge. It fails
// as soon as the camera is down, with the reason the capture loop gave.
func (l *latest[T]) next(ctx context.Context, maxAge time.Duration) (T, error) {
	var zero T
	l.mu.Lock()
	seq := l.seq
	if maxAge > 0 && seq > 0 && l.down == nil && time.Since(l.at) <= maxAge {
		v := l.v
		l.mu.Unlock()
		return v, nil
	}
	for {
		switch {
		case l.closed:
			l.mu.Unlock()
			return zero, ErrClosed
		case l.seq > seq:
			v := l.v
			l.mu.Unlock()
			return v, nil
		case l.down != nil:
			err := l.down
			l.mu.Unlock()
			return zero, err
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return zero, fmt.Errorf("no frame came in time: %w", ctx.Err())
		case <-ch:
		}
		l.mu.Lock()
	}
}
