package grblsim

import (
	"errors"
	"fmt"

	"github.com/creack/pty"
)

// ServePTY serves the simulator on a new pseudo-terminal, as a USB GRBL board appears on
// a serial port, and returns the path of its terminal side (/dev/pts/N): open it with
// grbl.DialSerial at any baud rate. The welcome waits there for the first client; a later
// client of the same pty gets none and resets the controller, as reopening the port of a
// board that does not reset on open does. Disconnect hangs the pty up and serves a new one.
func (s *Sim) ServePTY() (string, error) {
	master, tty, err := pty.Open()
	if err != nil {
		return "", fmt.Errorf("grblsim: open a pty: %w", err)
	}
	// Raw at once: the welcome sits in the terminal's input until a client opens it, and a
	// cooked terminal would echo it back to the controller.
	if err := makeRaw(tty); err != nil {
		_ = master.Close()
		_ = tty.Close()
		return "", fmt.Errorf("grblsim: raw pty: %w", err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = master.Close()
		_ = tty.Close()
		return "", errors.New("grblsim: closed")
	}
	// The simulator keeps the terminal side open, so that the controller side does not read
	// a hang-up between clients.
	s.ptys = append(s.ptys, tty)
	s.ptyPath = tty.Name()
	s.mu.Unlock()
	s.attach(master, true)
	return tty.Name(), nil
}

// PTYPath returns the path of the pty served last ("" when none): after Disconnect, the
// new one's.
func (s *Sim) PTYPath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ptyPath
}
