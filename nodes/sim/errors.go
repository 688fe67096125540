package sim

import (
	"errors"

	"github.com/corral-farm/corral/nodes/device"
)

// Sentinel errors. Every error a Phone returns is an *Error wrapping one of these, the caller's
// ctx error, or the error given to FailNext.
var (
	ErrClosed         = errors.New("phone is closed")
	ErrOutOfScreen    = errors.New("point is outside the screen")
	ErrUnknownKey     = errors.New("unknown key")
	ErrUnknownPackage = errors.New("unknown package")
	ErrNoFocus        = errors.New("no text field has focus")
	ErrBadInput       = errors.New("bad input")
	ErrNoActivity     = errors.New("no launcher activity")
	ErrSystemApp      = errors.New("system app")
	ErrUnknownIME     = errors.New("unknown input method")
	ErrNoFile         = errors.New("no such file")
	ErrStorageFull    = errors.New("storage full")
)

// Error is a failed operation on a device of this driver (see device.Error).
type Error = device.Error

func (p *Phone) wrap(op string, err error, hint string) error {
	return &Error{Kind: "sim phone", Serial: p.serial, Op: op, Err: err, Hint: hint}
}
