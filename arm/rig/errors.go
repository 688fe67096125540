package rig

import (
	"errors"

	"github.com/corral-farm/corral/nodes/device"
)

// Sentinel errors. Every error a Driver returns is a *device.Error wrapping one of these, a
// *grbl.OpError (the controller refused or the link failed), or the caller's ctx error.
var (
	ErrNotCalibrated = errors.New("the rig is not calibrated")
	ErrOutOfScreen   = errors.New("point is outside the calibrated screen")
	ErrAlarm         = errors.New("the arm is in alarm")
	ErrUnknownKey    = errors.New("the arm has no such key")
	ErrBadInput      = errors.New("bad input")
	ErrNoReadback    = errors.New("the rig has no calibration readback")
	ErrHalted        = errors.New("the rig is halted")
	ErrNoClipboard   = errors.New("the rig has no clipboard helper")
)

// kind is how errors name a rig.
const kind = "arm"

func (d *Driver) wrap(op string, err error, hint string) error {
	return &device.Error{Kind: kind, Serial: d.info.Serial, Op: op, Err: err, Hint: hint}
}
