package adbsim

import (
	"context"
	"errors"
	"io"
	"sync"
)

// maxInbox is how many unread packets a stream holds. The host sends one WRTE and waits for
// its OKAY, so more than one means it broke the flow control.
const maxInbox = 4

var errStreamClosed = errors.New("adb stream closed")

// stream is one service connection multiplexed on a conn: the device's id (local) and the
// host's (remote).
type stream struct {
	c             *conn
	local, remote uint32
	ctx           context.Context // ends when either side closes the stream or the connection
	cancel        context.CancelFunc
	okay          chan struct{} // the host's OKAY for our last WRTE
	closeOnce     sync.Once
	reading       bool // the service reads what the host writes; otherwise it is dropped

	inMu  sync.Mutex
	inbox [][]byte // host WRTEs not yet read, OKAYed as they are read
	more  chan struct{}
	rest  []byte // the unread part of the packet being read; only Read touches it
}

func newStream(c *conn, local, remote uint32, reading bool) *stream {
	ctx, cancel := context.WithCancel(c.ctx)
	return &stream{c: c, local: local, remote: remote, ctx: ctx, cancel: cancel, reading: reading,
		okay: make(chan struct{}, 1), more: make(chan struct{}, 1)}
}

func (s *stream) acked() {
	select {
	case s.okay <- struct{}{}:
	default:
	}
}

// received takes a WRTE from the host. A stream that does not read acknowledges at once; one
// that reads acknowledges each packet when it has read it, so the host never runs ahead.
func (s *stream) received(data []byte) error {
	if !s.reading {
		return s.c.send(packet{cmd: cmdOKAY, arg0: s.local, arg1: s.remote})
	}
	s.inMu.Lock()
	if len(s.inbox) >= maxInbox {
		s.inMu.Unlock()
		s.close()
		return nil
	}
	s.inbox = append(s.inbox, data)
	s.inMu.Unlock()
	select {
	case s.more <- struct{}{}:
	default:
	}
	return nil
}

// Read reads what the host wrote; io.EOF once the stream is closed.
func (s *stream) Read(b []byte) (int, error) {
	for len(s.rest) == 0 {
		s.inMu.Lock()
		if len(s.inbox) > 0 {
			s.rest = s.inbox[0]
			s.inbox[0] = nil
			s.inbox = s.inbox[1:]
			s.inMu.Unlock()
			if err := s.c.send(packet{cmd: cmdOKAY, arg0: s.local, arg1: s.remote}); err != nil {
				return 0, err
			}
			continue
		}
		s.inMu.Unlock()
		select {
		case <-s.more:
		case <-s.ctx.Done():
			return 0, io.EOF
		}
	}
	n := copy(b, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

// Write sends b in packets of at most the negotiated size, waiting for the host's OKAY after
// each one.
func (s *stream) Write(b []byte) (int, error) {
	maxData := s.c.payloadMax()
	done := 0
	for done < len(b) {
		chunk := b[done:min(len(b), done+maxData)]
		if err := s.c.send(packet{cmd: cmdWRTE, arg0: s.local, arg1: s.remote, data: chunk}); err != nil {
			return done, err
		}
		select {
		case <-s.okay:
		case <-s.ctx.Done():
			return done, errStreamClosed
		}
		done += len(chunk)
	}
	return done, nil
}

// close ends the stream from the device's side: CLSE to the host, once.
func (s *stream) close() {
	s.closeOnce.Do(func() {
		s.c.mu.Lock()
		mine := s.c.streams[s.local] == s
		if mine {
			delete(s.c.streams, s.local)
		}
		s.c.mu.Unlock()
		if mine && s.ctx.Err() == nil {
			_ = s.c.send(packet{cmd: cmdCLSE, arg0: s.local, arg1: s.remote})
		}
		s.cancel()
	})
}
