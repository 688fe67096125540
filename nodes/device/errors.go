package device

import "errors"

// Error is a failed driver operation: which kind of device and which one, which
// operation, why, and what to do about it. Drivers wrap their sentinel errors in it.
type Error struct {
	Kind   string // "android", "sim phone", …: how the message names the device
	Serial string
	Op     string
	Err    error
	Hint   string
}

func (e *Error) Error() string {
	s := e.Kind + " " + e.Serial + ": " + e.Op + ": " + e.Err.Error()
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNoElement is what a SelectorActor's error wraps when its selector matches nothing: the
// tools that take ignore_NotFoundError let it pass.
var ErrNoElement = errors.New("no element matches the selector")

// ErrBadInput is what a driver's error is (errors.Is) when the caller asked for something the
// device cannot be asked (a selector that does not parse, a URL that is not one, a tab that is
// not open) and nothing ran: for the tools to answer bad_input, the caller's mistake, not the
// driver's (driver_error).
var ErrBadInput = errors.New("bad input")

// ErrUnavailable is what a driver's error is (errors.Is) when its device cannot do anything
// now, until a person has seen to it (an arm rig halted by emergency_stop, its controller in
// alarm, not calibrated), and nothing ran: the tools answer unhealthy, a refusal, not
// driver_error, which counts against the driver.
var ErrUnavailable = errors.New("the device cannot serve now")

// ErrUnsupported is what a driver's error is (errors.Is) when its device lacks what the call
// needs, by how it was built or set up (an arm rig with no clipboard helper, or no calibration
// readback), and nothing ran: the tools answer unsupported, a refusal, as for a platform
// without the tool, not driver_error, which counts against the driver.
var ErrUnsupported = errors.New("the device cannot do this")

// ErrNotConfigured is what an error is (errors.Is) when the node lacks configuration for this
// one device (no passcode for it), not for its platform or the whole node (no model for the AI
// tools), and nothing ran: the tools answer unconfigured, and the gateway offers the other
// devices, those of the same node and platform included.
var ErrNotConfigured = errors.New("this node has no configuration for this device")
