package web

import "github.com/corral-farm/corral/nodes/device"

// callerMistake is an error of the caller's asking: nothing ran, and it is device.ErrBadInput
// (errors.Is) so that the tools answer bad_input, not driver_error.
type callerMistake struct{ msg string }

// mistake returns a sentinel error that is a caller's mistake.
func mistake(msg string) error { return &callerMistake{msg} }

func (m *callerMistake) Error() string { return m.msg }

func (m *callerMistake) Is(target error) bool { return target == device.ErrBadInput }
