package grblsim

import (
	"errors"
	"io"
	"net"
	"sync"
)

// outQueue bounds what waits to be written to a slow connection; past it, lines are lost
// (as GRBL's would be to a host that stopped reading).
const outQueue = 4096

// conn is one stream to the controller.
type conn struct {
	rw   io.ReadWriteCloser
	out  chan string
	once sync.Once
	gone chan struct{}
}

// send queues a line for the connection without waiting.
func (c *conn) send(text string) {
	select {
	case <-c.gone:
	case c.out <- text:
	default:
	}
}

func (c *conn) close() {
	c.once.Do(func() {
		close(c.gone)
		_ = c.rw.Close()
	})
}

// Attach serves the simulator on one stream (a net.Conn, a pipe): it greets it as GRBL does
// when a port opens (unless it is stalled: Stall), then reads and answers until the stream
// ends, Disconnect or Close.
func (s *Sim) Attach(rw io.ReadWriteCloser) {
	s.attach(rw, true)
}

func (s *Sim) attach(rw io.ReadWriteCloser, greet bool) {
	c := &conn{rw: rw, out: make(chan string, outQueue), gone: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = rw.Close()
		return
	}
	s.conns[c] = struct{}{}
	// A stalled controller (frozen) sends nothing, a greeting to a new connection neither.
	if greet && !s.clock.Now().Before(s.stallUntil) {
		c.send(welcome)
		if s.state == stateAlarm && s.halted == 0 {
			c.send("[MSG:" + msgLocked + "]\r\n")
		}
	}
	s.wg.Add(2)
	s.mu.Unlock()
	go s.writeLoop(c)
	go s.readLoop(c)
}

func (s *Sim) readLoop(c *conn) {
	defer s.wg.Done()
	defer s.drop(c)
	buf := make([]byte, 256)
	for {
		n, err := c.rw.Read(buf)
		if n > 0 {
			s.input(c, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (s *Sim) writeLoop(c *conn) {
	defer s.wg.Done()
	defer s.drop(c)
	for {
		select {
		case <-c.gone:
			return
		case text := <-c.out:
			if _, err := io.WriteString(c.rw, text); err != nil {
				return
			}
		}
	}
}

// drop forgets a connection and closes it.
func (s *Sim) drop(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	c.close()
}

// takeConns removes every connection; the caller closes them. Called with s.mu held.
func (s *Sim) takeConns() []*conn {
	cs := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		cs = append(cs, c)
	}
	clear(s.conns)
	return cs
}

// Serve accepts connections on ln (FluidNC's telnet port speaks raw lines: so does this)
// until ln is closed or the simulator is. Every connection talks to the same machine.
func (s *Sim) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = ln.Close()
		return net.ErrClosed
	}
	s.listeners = append(s.listeners, ln)
	s.mu.Unlock()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		s.Attach(c)
	}
}

// ServeTCP listens on addr ("127.0.0.1:0" picks a port) and serves in the background until
// Close. It returns the address listened on.
func (s *Sim) ServeTCP(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.Serve(ln); err != nil {
			s.log.Warn("grblsim: serve", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return ln.Addr().String(), nil
}
