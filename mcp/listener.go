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
// closes the connection longest without a request (an idle keep-alive, or one that has not
// sent a whole request's headers yet) to make room, or waits for one to close or go idle, so
// that a flood of connections (half-sent headers, stalled bodies, idle keep-alives) cannot take
// every file descriptor of the process, which `corral up` shares with NATS and the node, nor
// hold the front door shut (health probes included) for a header or idle timeout. Connections
// waiting in the kernel's backlog are not yet counted. The server must be HTTPServer's: its
// ConnState tells the listener which connections carry no request.
func (g *Gateway) Listener(ln net.Listener) net.Listener {
	if g.limits.MaxConns < 0 {
		return ln
	}
	return &limitListener{Listener: ln, log: g.log, reclaimed: g.metrics.reclaimed, slots: make(chan struct{}, g.limits.MaxConns),
		done: make(chan struct{}), wentIdle: make(chan struct{}, 1), spare: map[*limitConn]spareSince{}}
}

// limitListener is golang.org/x/net/netutil.LimitListener, which this module does not require,
// with connections that carry no request reclaimed at the cap.
type limitListener struct {
	net.Listener
	log       *slog.Logger
	reclaimed prometheus.Counter
	slots     chan struct{}
	done      chan struct{} // closed by Close: an Accept waiting for a slot gives up
	closeOnce sync.Once
	wentIdle  chan struct{} // a connection went idle: one waiting for a slot may reclaim it

	mu sync.Mutex
	// spare are the connections without a request: idle keep-alives, and new ones whose first
	// request's headers have not all come (slow clients, or a flood of half-sent headers that
	// would otherwise hold every slot until ReadHeaderTimeout).
	spare      map[*limitConn]spareSince
	lastWarned time.Time
}

// spareSince is when a connection became spare, and whether it is new (no request yet).
type spareSince struct {
	at    time.Time
	fresh bool
}

// freshGrace is how long a new connection may send its first request's headers before it may be
// closed for another at the cap: a client sends them at once, and closing the newest would let
// a flood of reconnections shed a probe before it was read.
const freshGrace = time.Second

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
	// At the cap: take the newcomer first, so that a spare connection is closed only for one
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

// room takes a slot, closing the longest spare connection for it or waiting for one to close,
// go idle, or be new past freshGrace. http.Server.Shutdown waits for Serve to leave Accept
// before it closes idle connections: room must not wait after Close.
func (l *limitListener) room() error {
	for {
		later := l.reclaimSpare()
		select { // a slot first: a stale went-idle signal must not close a second connection
		case l.slots <- struct{}{}:
			return nil
		default:
		}
		var grown <-chan time.Time
		if later > 0 {
			grown = time.After(later) // unreferenced timers are collected (Go 1.23)
		}
		select {
		case l.slots <- struct{}{}:
			return nil
		case <-l.done:
			return net.ErrClosed
		case <-l.wentIdle:
		case <-grown:
		}
	}
}

func (l *limitListener) wrap(c net.Conn) net.Conn {
	return &limitConn{Conn: c, l: l, release: func() { <-l.slots }}
}

// reclaimSpare closes the connection longest without a request, if any, to free its slot; a new
// one only past freshGrace. Else it returns how long until the oldest new one is past it (0:
// none is new).
func (l *limitListener) reclaimSpare() (later time.Duration) {
	l.mu.Lock()
	now := time.Now()
	var oldest *limitConn
	for c, since := range l.spare {
		if since.fresh && now.Sub(since.at) < freshGrace {
			if wait := freshGrace - now.Sub(since.at); later == 0 || wait < later {
				later = wait
			}
			continue
		}
		if oldest == nil || since.at.Before(l.spare[oldest].at) {
			oldest = c
		}
	}
	delete(l.spare, oldest)
	warn := oldest != nil && now.Sub(l.lastWarned) > time.Minute
	if warn {
		l.lastWarned = now
	}
	l.mu.Unlock()
	if oldest == nil {
		return later
	}
	l.reclaimed.Inc()
	if warn {
		l.log.Warn("the front door is at its connection cap (--max-conns): closing idle keep-alive connections, and ones that have not sent a whole request, to make room",
			"slots", cap(l.slots))
	}
	_ = oldest.Close()
	return 0
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// connState is HTTPServer's ConnState: it keeps the listener's spare connections. A new one is
// spare until its first request's headers have all come (StateActive).
func connState(c net.Conn, s http.ConnState) {
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	l := lc.l
	l.mu.Lock()
	if s == http.StateNew || s == http.StateIdle {
		l.spare[lc] = spareSince{at: time.Now(), fresh: s == http.StateNew}
	} else {
		delete(l.spare, lc)
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
		delete(c.l.spare, c)
		c.l.mu.Unlock()
		c.release()
	})
	return err
}
