package android

import (
	"errors"

	"github.com/corral-farm/corral/nodes/device"
)

// Sentinel errors. Every error a Driver returns is an *Error wrapping one of these, the
// caller's ctx error, or what the device or the adb server answered.
var (
	// ErrDisconnected: the device left the adb server (or the driver was closed) before or
	// during the call.
	ErrDisconnected = errors.New("device disconnected")
	// ErrBadArgument: the call's arguments cannot become a safe adb command.
	ErrBadArgument = errors.New("bad argument")
	// ErrCommandFailed: the device ran the command and said it failed.
	ErrCommandFailed = errors.New("command failed")
	// ErrNotInstalled: the package named is not installed on the device.
	ErrNotInstalled = errors.New("not installed")
	// ErrServer: the adb server is unreachable or answered something unexpected.
	ErrServer = errors.New("adb server")
)

// Error is a failed operation on a device of this driver (see device.Error).
type Error = device.Error
