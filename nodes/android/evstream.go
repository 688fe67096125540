package android

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// writeTimeout bounds one write into an event stream: a few hundred bytes that the adb server
// takes at once unless it is stuck.
const writeTimeout = 2 * time.Second

// eventStream is one persistent adb stream into an event device: `exec:cat > PATH`. adbd runs
// an exec: command with `sh -c`, raw and without a pty, so what the driver writes reaches
// cat's stdin unchanged and cat writes it to the device, where the kernel reads it as input
// events. The stream is opened on first use, kept open, and opened again after it fails. Its
// lock serialises what is written through it, a gesture at a time.
type eventStream struct {
	d    *Driver
	path string
	size int           // bytes per input_event (eventSize)
	lock chan struct{} // held for a whole gesture; a channel, so a waiting ctx can give up

	// The fields below belong to whoever holds lock.
	conn *streamConn
	buf  []byte
}

// streamConn is one opening of an event stream.
type streamConn struct {
	c    net.Conn
	done chan struct{} // closed when the stream has ended: the device closed it, or the driver
	said []byte        // what the device printed first (cat prints nothing unless it fails); read after done
}

func newEventStream(d *Driver, path string, size int) *eventStream {
	return &eventStream{d: d, path: path, size: size, lock: make(chan struct{}, 1)}
}

// acquire takes the stream's lock, or gives up when ctx ends.
func (s *eventStream) acquire(ctx context.Context) error {
	select {
	case s.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *eventStream) release() { <-s.lock }

// ready opens the stream unless it is open and alive. ctx bounds the opening only: the
// stream outlives the call that opened it, until it fails or the driver closes.
func (s *eventStream) ready(ctx context.Context) error {
	if s.conn != nil {
		select {
		case <-s.conn.done:
			s.drop()
		default:
			return nil
		}
	}
	c, stop, err := s.d.start(ctx, "exec:cat > "+s.path)
	if err != nil {
		return err
	}
	stop()
	sc := &streamConn{c: c, done: make(chan struct{})}
	go sc.read()
	s.conn = sc
	return nil
}

// read waits for the stream's end, keeping the start of what the device printed.
func (sc *streamConn) read() {
	defer close(sc.done)
	buf := make([]byte, 256)
	for {
		n, err := sc.c.Read(buf)
		if len(sc.said) < 512 {
			sc.said = append(sc.said, buf[:n]...)
		}
		if err != nil {
			return
		}
	}
}

// send writes one report: evs and a SYN_REPORT, in one write, so that the report reaches the
// device whole.
func (s *eventStream) send(evs ...inputEvent) error {
	s.buf = appendEvents(s.buf[:0], s.size, evs...)
	s.buf = appendEvents(s.buf, s.size, inputEvent{typ: evSyn, code: synReport})
	_ = s.conn.c.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := s.conn.c.Write(s.buf); err != nil {
		return s.ended(err)
	}
	return nil
}

// alive returns an error if the stream has ended: its writes may not all have landed.
func (s *eventStream) alive() error {
	select {
	case <-s.conn.done:
		return s.ended(io.EOF)
	default:
		return nil
	}
}

// ended describes a stream that failed with err: by what the device printed, if it has ended
// and printed something (a shell that may not open the device says so), else by err.
func (s *eventStream) ended(err error) error {
	select {
	case <-s.conn.done:
		if said := strings.TrimSpace(string(s.conn.said)); said != "" {
			return fmt.Errorf("%w: writing %s: %s", ErrCommandFailed, s.path, quoteOutput(said))
		}
	default:
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("the stream into %s ended", s.path)
	}
	return fmt.Errorf("the stream into %s failed: %w", s.path, err)
}

// drop closes the stream; the next ready opens another.
func (s *eventStream) drop() {
	if s.conn == nil {
		return
	}
	s.d.untrack(s.conn.c)
	_ = s.conn.c.Close()
	s.conn = nil
}

// onStream runs write on s with its lock held, and once more on a stream opened again if it
// failed (the device ended the stream, the adb server dropped it). done is false when it
// failed twice: the caller then does the call with an `input` command, and the failure is
// logged. A cancelled ctx or a device that left ends it at once.
func (d *Driver) onStream(ctx context.Context, s *eventStream, op string, write func(ctx context.Context) error) (done bool, err error) {
	if err := s.acquire(ctx); err != nil {
		return true, d.fail(ctx, op, err, "")
	}
	defer s.release()
	var last error
	for attempt := 1; attempt <= 2; attempt++ {
		err := s.ready(ctx)
		if err == nil {
			err = write(ctx)
		}
		if err == nil {
			err = s.alive()
		}
		switch {
		case err == nil:
			return true, nil
		case ctx.Err() != nil || d.isClosed() || errors.Is(err, ErrDisconnected):
			return true, d.fail(ctx, op, err, "")
		}
		s.drop()
		last = err
		d.log.Info("android event stream failed; opening it again",
			append(d.logSerial(), "device", s.path, "op", op, "attempt", attempt, "err", err)...)
	}
	d.log.Warn("android event stream failed twice; this call goes through the input command",
		append(d.logSerial(), "device", s.path, "op", op, "err", last)...)
	return false, last
}
