package mcp

import (
	"net"
	"sync"
)

// Listener returns ln accepting at most MaxConns connections at once: beyond that, Accept
// waits for one to close, so that a flood of connections (stalled bodies, idle keep-alives)
// cannot take every file descriptor of the process, which `corral up` shares with NATS and
// the node. Connections waiting in the kernel's backlog are not yet counted.
func (g *Gateway) Listener(ln net.Listener) net.Listener {
	if g.limits.MaxConns < 0 {
		return ln
	}
	return &limitListener{Listener: ln, slots: make(chan struct{}, g.limits.MaxConns), done: make(chan struct{})}
}

// limitListener is golang.org/x/net/netutil.LimitListener, which this module does not require.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{} // closed by Close: an Accept waiting for a slot gives up
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	// http.Server.Shutdown waits for Serve to leave Accept before it closes idle connections:
	// with every slot held by an idle keep-alive, Accept must not wait for one after Close.
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back once, on the first Close.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
