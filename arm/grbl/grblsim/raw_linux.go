//go:build linux

package grblsim

import (
	"os"

	"golang.org/x/sys/unix"
)

const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)

// makeRaw puts a terminal in raw mode (cfmakeraw): no echo, no line editing, no CR/LF
// translation.
func makeRaw(f *os.File) error { return setRaw(f, ioctlGetTermios, ioctlSetTermios) }
