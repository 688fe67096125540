package sim

import (
	"errors"

	"github.com/corral-farm/corral/nodes/device"
)

// Sentinel errors. Every error a Phone returns is an *Error wrapping one of these, the caller's
// ctx error, or the error given to FailNext. The caller's mistakes among them (a point off the
// screen, a key, app or file the phone has not, text with no field focused) are
// device.ErrBadInput too, as a real device's driver answers them: the tools say bad_input.
var (
	ErrClosed               = errors.New("phone is closed")
	ErrOutOfScreen    error = &mistake{"point is outside the screen"}
	ErrUnknownKey     error = &mistake{"unknown key"}
	ErrUnknownPackage error = &mistake{"unknown package"}
	ErrNoFocus        error = &mistake{"no text field has focus"}
	ErrBadInput       error = &mistake{"bad input"}
	ErrNoActivity           = errors.New("no launcher activity")
	ErrSystemApp            = errors.New("system app")
	ErrUnknownIME           = errors.New("unknown input method")
	ErrNoFile         error = &mistake{"no such file"}
	ErrStorageFull          = errors.New("storage full")
)

// mistake is a sentinel for the caller's mistakes: device.ErrBadInput (errors.Is).
type mistake struct{ msg string }

func (m *mistake) Error() string { return m.msg }

func (m *mistake) Is(target error) bool { return target == device.ErrBadInput }

// Error is a failed operation on a device of this driver (see device.Error).
type Error = device.Error

func (p *Phone) wrap(op string, err error, hint string) error {
	return &Error{Kind: "sim phone", Serial: p.serial, Op: op, Err: err, Hint: hint}
}
