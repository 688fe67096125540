package tools

import (
	"errors"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/device"
)

// deviceFailed is a call's error that is the device's own (agent.ErrDeviceFailed): the agent's
// task ends on it, where the model could only call again.
type deviceFailed struct{ error }

func (e deviceFailed) Unwrap() error        { return e.error }
func (e deviceFailed) Is(target error) bool { return target == agent.ErrDeviceFailed }

// onTheDevice marks err as the device's failure when it is one: the driver's own error
// (driver_error from a *device.Error: not the caller's mistake, an element not found, an
// ability it lacks) or a device that cannot serve until a person sees to it (unhealthy: a rig
// halted, in alarm). Other errors (not_found, bad_input, vision_unavailable, …) are the
// model's to act on.
func onTheDevice(err error) error {
	var de *device.Error
	if code := ErrorCode(err); code == broker.CodeUnhealthy || code == broker.CodeDriver && errors.As(err, &de) {
		return deviceFailed{err}
	}
	return err
}
