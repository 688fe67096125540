package broker

import (
	"errors"
	"net"
	"sync"

	"github.com/nats-io/nats.go"
)

// droppableDialer dials NATS as nats.go's own dialer does and keeps the last connection, so
// that a process whose server stopped answering can drop it (liveness_stall.go): nats.go then
// reconnects as after any cut, on a new TCP connection, and requests in flight go on waiting
// for their answers. nats.Conn.ForceReconnect would fail every one of them, a call running
// through the stall among them.
type droppableDialer struct {
	dialer net.Dialer

	mu         sync.Mutex
	conn       net.Conn
	connecting *connectWatch // the connect under way of ConnectContext (connect_ctx.go), or nil
}

func newDroppableDialer() *droppableDialer {
	return &droppableDialer{dialer: net.Dialer{Timeout: nats.DefaultTimeout}}
}

// Dial is nats.CustomDialer's.
func (d *droppableDialer) Dial(network, address string) (net.Conn, error) {
	d.mu.Lock()
	w := d.connecting
	d.mu.Unlock()
	c, err := w.dial(&d.dialer, network, address)
	if err == nil {
		d.mu.Lock()
		d.conn = c
		d.mu.Unlock()
	}
	return c, err
}

// drop closes the last connection dialled.
func (d *droppableDialer) drop() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn == nil {
		return errors.New("no connection to NATS to drop")
	}
	return d.conn.Close()
}

// dropperOf is what drops nc's connection; nil for a connection not made by Connect, or one
// in process (no link to stall).
func dropperOf(nc *nats.Conn) func() error {
	if d, ok := nc.Opts.CustomDialer.(*droppableDialer); ok && nc.Opts.InProcessServer == nil {
		return d.drop
	}
	return nil
}
