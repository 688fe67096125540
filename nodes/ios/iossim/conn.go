package iossim

import (
	"net"
	"sync"
)

// pipeConn is one client connection to the host. After a Connect it is a pipe to a device port;
// whoever closes it (the host, a Detach, an Unhandle, the service itself) also releases
// anything waiting on done.
type pipeConn struct {
	net.Conn
	once sync.Once
	done chan struct{}
}

func newPipeConn(c net.Conn) *pipeConn {
	return &pipeConn{Conn: c, done: make(chan struct{})}
}

func (c *pipeConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return c.Conn.Close()
}
