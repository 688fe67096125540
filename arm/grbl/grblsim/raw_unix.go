//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package grblsim

import (
	"os"

	"golang.org/x/sys/unix"
)

func setRaw(f *os.File, get, set uint) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ioErr error
	err = rc.Control(func(fd uintptr) {
		t, err := unix.IoctlGetTermios(int(fd), get)
		if err != nil {
			ioErr = err
			return
		}
		t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
		t.Oflag &^= unix.OPOST
		t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
		t.Cflag &^= unix.CSIZE | unix.PARENB
		t.Cflag |= unix.CS8
		t.Cc[unix.VMIN] = 1
		t.Cc[unix.VTIME] = 0
		ioErr = unix.IoctlSetTermios(int(fd), set, t)
	})
	if err != nil {
		return err
	}
	return ioErr
}
