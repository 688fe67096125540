package mcp

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Listener returns ln accepting at most MaxConns connections at once: beyond that, Accept
// closes the longest-idle keep-alive connection to make room, or waits for one to close or go
// idle, so that a flood of connections (stalled bodies, idle keep-alives) cannot take every file
// descriptor of the process, which `corral up` shares with NATS and the node, nor hold the
// front door shut for an idle timeout. Connections waiting in the kernel's backlog are not yet
// counted. The server must be HTTPServer's: its ConnState tells the listener which are idle.
func (g *Gateway) Listener(ln net.Listener) net.Listener {
	if g.limits.MaxConns < 0 {
		return ln
	}
	return &limitListener{Listener: ln, log: g.log, reclaimed: g.metrics.reclaimed, slots: make(chan struct{}, g.limits.MaxConns),
		done: make(chan struct{}), wentIdle: make(chan struct{}, 1), idle: map[*limitConn]time.Time{}}
}

// limitListener is golang.org/x/net/netutil.LimitListener, which this module does not require,
// with idle connections reclaimed at the cap.
type limitListener struct {
	net.Listener
	log       *slog.Logger
	reclaimed prometheus.Counter
	slots     chan struct{}
	done      chan struct{} // closed by Close: an Accept waiting for a slot gives up
	closeOnce sync.Once
	wentIdle  chan struct{} // a connection went idle: one waiting for a slot may reclaim it

	mu         sync.Mutex
	idle       map[*limitConn]time.Time // since when
	lastWarned time.Time
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
		c, err := l.Listener.Accept()
		if err != nil {
			<-l.slots
			return nil, err
		}
		return l.wrap(c), nil
	case <-l.done:
		return nil, net.ErrClosed
	default:
	}
	// At the cap: take the newcomer first, so that an idle connection is closed only for one
	// really waiting (this holds one descriptor over the cap), then make room for it.
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if err := l.room(); err != nil {
		_ = c.Close()
		return nil, err
	}
	return l.wrap(c), nil
}

// room takes a slot, closing the longest-idle connection for it or waiting for one to close or
// go idle. http.Server.Shutdown waits for Serve to leave Accept before it closes idle
// connections: room must not wait after Close.
func (l *limitListener) room() error {
	for {
		l.reclaimIdle()
		select { // a slot first: a stale went-idle signal must not close a second connection
		case l.slots <- struct{}{}:
			return nil
		default:
		}
		select {
		case l.slots <- struct{}{}:
			return nil
		case <-l.done:
			return net.ErrClosed
		case <-l.wentIdle:
		}
	}
}

func (l *limitListener) wrap(c net.Conn) net.Conn {
	return &limitConn{Conn: c, l: l, release: func() { <-l.slots }}
}

// reclaimIdle closes the longest-idle connection, if any, to free its slot.
func (l *limitListener) reclaimIdle() {
	l.mu.Lock()
	var oldest *limitConn
	for c, since := range l.idle {
		if oldest == nil || since.Before(l.idle[oldest]) {
			oldest = c
		}
	}
	delete(l.idle, oldest)
	warn := oldest != nil && time.Since(l.lastWarned) > time.Minute
	if warn {
		l.lastWarned = time.Now()
	}
	l.mu.Unlock()
	if oldest == nil {
		return
	}
	l.reclaimed.Inc()
	if warn {
		l.log.Warn("the front door is at its connection cap (--max-conns): closing idle keep-alive connections to make room",
			"slots", cap(l.slots))
	}
	_ = oldest.Close()
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// connState is HTTPServer's ConnState: it keeps the listener's idle connections.
func connState(c net.Conn, s http.ConnState) {
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	l := lc.l
	l.mu.Lock()
	if s == http.StateIdle {
		l.idle[lc] = time.Now()
	} else {
		delete(l.idle, lc)
	}
	l.mu.Unlock()
	if s == http.StateIdle {
		select {
		case l.wentIdle <- struct{}{}:
		default:
		}
	}
}

// limitConn gives its slot back once, on the first Close.
type limitConn struct {
	net.Conn
	l       *limitListener
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.idle, c)
		c.l.mu.Unlock()
		c.release()
	})
	return err
}
