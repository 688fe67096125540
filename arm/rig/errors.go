package rig

import (
	"github.com/corral-farm/corral/nodes/device"
)

// Sentinel errors. Every error a Driver returns is a *device.Error wrapping one of these, a
// *grbl.OpError (the controller refused or the link failed), or the caller's ctx error.
var (
	ErrNotCalibrated = &sentinel{"the rig is not calibrated", device.ErrUnavailable}
	ErrOutOfScreen   = &sentinel{"point is outside the calibrated screen", device.ErrBadInput}
	ErrAlarm         = &sentinel{"the arm is in alarm", device.ErrUnavailable}
	ErrUnknownKey    = &sentinel{"the arm has no such key", device.ErrBadInput}
	ErrBadInput      = &sentinel{"bad input", device.ErrBadInput}
	ErrNoReadback    = &sentinel{"the rig has no calibration readback", device.ErrUnsupported}
	ErrHalted        = &sentinel{"the rig is halted", device.ErrUnavailable}
	ErrNoClipboard   = &sentinel{"the rig has no clipboard helper", device.ErrUnsupported}
	ErrCalibrating   = &sentinel{"the rig is calibrating", device.ErrUnavailable}
	ErrNotAnswering  = &sentinel{"the controller stopped answering", device.ErrUnavailable}
)

// sentinel is one of the rig's errors, which is also (errors.Is) the device error the tools
// answer by: the caller's mistake (device.ErrBadInput: bad_input), a rig that cannot move
// until a person recovers or calibrates it (device.ErrUnavailable: unhealthy) or one that
// lacks what the call needs (device.ErrUnsupported: unsupported), all refusals in which
// nothing moved, not the driver's failures (driver_error) that count against it.
type sentinel struct {
	msg string
	is  error // nil: a driver_error
}

func (e *sentinel) Error() string { return e.msg }

func (e *sentinel) Is(target error) bool { return e.is != nil && target == e.is }

// kind is how errors name a rig.
const kind = "arm"

func (d *Driver) wrap(op string, err error, hint string) error {
	return &device.Error{Kind: kind, Serial: d.info.Serial, Op: op, Err: err, Hint: hint}
}
