package broker

import (
	"context"
	"fmt"
	"net"
	"sync"

	"github.com/nats-io/nats.go"
)

// nats.go's Connect takes no context: a server that accepts the TCP connection but does not
// answer (overloaded, or not NATS) holds it for its whole connect timeout (2 s), and a
// command's Ctrl-C with it. ConnectContext's dialer dials within ctx and closes what it dialled
// when ctx ends before the connect is done, which ends nats.go's wait for the server's INFO
// (or TLS handshake, or PONG) at once. ctx bounds the connect only: reconnects later dial
// without it.

// connectWatch is the context of a connect under way, and the connections it dialled.
type connectWatch struct {
	ctx context.Context

	mu    sync.Mutex
	stops []func() bool // each connection's context.AfterFunc closing it
}

// dial dials within w's context, the host name's lookup too (dialHost), and closes the
// connection should the context end before end; with no watch (a reconnect), it dials as
// nats.go would.
func (w *connectWatch) dial(d *net.Dialer, network, address string) (net.Conn, error) {
	if w == nil {
		return dialHost(context.Background(), d, network, address)
	}
	c, err := dialHost(w.ctx, d, network, address)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(w.ctx, func() { _ = c.Close() })
	w.mu.Lock()
	w.stops = append(w.stops, stop)
	w.mu.Unlock()
	return c, nil
}

// end stops closing the connections dialled: the connect is done.
func (w *connectWatch) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, stop := range w.stops {
		stop()
	}
}

// setWatch makes d dial within w's context (nil: none).
func (d *droppableDialer) setWatch(w *connectWatch) {
	d.mu.Lock()
	d.connecting = w
	d.mu.Unlock()
}

// connectWithin is nats.Connect(url, opts...) through d that stops at once when ctx ends,
// with ctx's error (its cause). A connection made as ctx ended is closed: the caller that
// gave up on it would not close it.
func connectWithin(ctx context.Context, d *droppableDialer, url string, opts ...nats.Option) (*nats.Conn, error) {
	w := &connectWatch{ctx: ctx}
	d.setWatch(w)
	nc, err := nats.Connect(url, append(opts, nats.SetCustomDialer(d), nats.SkipHostLookup())...) // d looks names up
	d.setWatch(nil)
	w.end()
	if ctx.Err() == nil {
		return nc, err
	}
	if nc != nil {
		nc.Close()
	}
	return nil, fmt.Errorf("stopped before NATS answered: %w", context.Cause(ctx))
}
