//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package grblsim

import (
	"os"

	"golang.org/x/sys/unix"
)

// makeRaw puts a terminal in raw mode (cfmakeraw): no echo, no line editing, no CR/LF
// translation.
func makeRaw(f *os.File) error { return setRaw(f, unix.TIOCGETA, unix.TIOCSETA) }
