package iossim

import (
	"sync"
)

// maxQueued bounds the notices waiting for a Listen client; one that falls this far behind is
// dropped (its connection closed) rather than let memory grow.
const maxQueued = 1024

// listener is a Listen client's queue of messages: the Listen result, then notices
// (Attached, Detached, Paired).
type listener struct {
	mu    sync.Mutex
	queue []queued
	wake  chan struct{} // a notice is queued
	done  chan struct{} // the client left or fell behind
	once  sync.Once
}

// queued is a message with its tag: the request's for the result, 0 for notices.
type queued struct {
	tag uint32
	msg any
}

func newListener() *listener {
	return &listener{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (l *listener) push(tag uint32, msg any) {
	l.mu.Lock()
	full := len(l.queue) >= maxQueued
	if !full {
		l.queue = append(l.queue, queued{tag, msg})
	}
	l.mu.Unlock()
	if full {
		l.stop()
		return
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *listener) stop() { l.once.Do(func() { close(l.done) }) }

// next waits for queued notices; false once the listener is stopped.
func (l *listener) next() ([]queued, bool) {
	for {
		l.mu.Lock()
		msgs := l.queue
		l.queue = nil
		l.mu.Unlock()
		if len(msgs) > 0 {
			return msgs, true
		}
		select {
		case <-l.wake:
		case <-l.done:
			return nil, false
		}
	}
}

// broadcastLocked queues a notice for every Listen client.
func (h *Host) broadcastLocked(msg any) {
	for l := range h.listeners {
		l.push(0, msg)
	}
}

// listen turns a client connection into a Listen one: the result, an Attached for every
// device present, then notices as devices come and go, all with tag 0 but the result. The
// listener is in place before the result goes out, so that no change after it is missed.
func (h *Host) listen(c *pipeConn, tag uint32) {
	l := newListener()
	h.mu.Lock()
	l.push(tag, muxResult{MessageType: "Result", Number: resultOK})
	for _, a := range h.attachedLocked() {
		l.push(0, a.message())
	}
	h.listeners[l] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.listeners, l)
		h.mu.Unlock()
	}()
	// The client says nothing more; reading tells when it leaves (or the host closes it).
	h.wg.Go(func() {
		defer l.stop()
		for {
			if _, _, err := readMuxMessage(c); err != nil {
				return
			}
		}
	})
	for {
		msgs, ok := l.next()
		if !ok {
			return
		}
		for _, m := range msgs {
			if writeMuxMessage(c, m.tag, m.msg) != nil {
				return
			}
		}
	}
}
