//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package grblsim

import (
	"errors"
	"os"
)

func makeRaw(*os.File) error { return errors.New("ptys are not supported on this system") }
