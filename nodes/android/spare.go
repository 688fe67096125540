package android

import (
	"context"
	"net"
)

// spareConn is a connection to the adb server dialled ahead of need, so that a question asked
// later does not wait for the dial (a dial costs as much as the question itself).
type spareConn struct {
	ch   chan dialResult
	used bool
}

type dialResult struct {
	c   net.Conn
	err error
}

// dialAhead starts dialling addr.
func dialAhead(ctx context.Context, addr string) *spareConn {
	s := &spareConn{ch: make(chan dialResult, 1)}
	go func() {
		c, err := dial(ctx, addr)
		s.ch <- dialResult{c, err}
	}()
	return s
}

// query waits for the dial and runs one host request on the connection.
func (s *spareConn) query(ctx context.Context, req string) (string, error) {
	s.used = true
	select {
	case r := <-s.ch:
		if r.err != nil {
			return "", r.err
		}
		return queryOn(ctx, r.c, req)
	case <-ctx.Done():
		go s.drain()
		return "", ctx.Err()
	}
}

// discard closes the connection unless query took it, without waiting for the dial.
func (s *spareConn) discard() {
	if !s.used {
		go s.drain()
	}
}

func (s *spareConn) drain() {
	if r := <-s.ch; r.c != nil {
		_ = r.c.Close()
	}
}
