package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// againSafe is what a failed install adds: an install cut off mid-push (the adb server's
// connection, a cable) left the caller guessing whether the app was half installed, or
// whether a second call would do harm. Neither: the drivers copy the whole file to the device
// before installing it (Android: push, then pm install -r; iOS: an AFC copy, then
// installation_proxy), and installing it again replaces the app, its data kept.
const againSafe = "app_install is safe to call again: nothing is installed until the whole file is on the device, " +
	"and installing it again replaces the app, its data kept"

// installAgain is the error of a failed install on the device, saying that app_install may
// be called again. The caller's mistakes (a file refused for what it is), a device that cannot
// install and a call aborted or timed out keep their own words.
func installAgain(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, device.ErrBadInput), ErrorCode(err) == broker.CodeBadInput, ErrorCode(err) == broker.CodeUnsupported:
		return err
	}
	return fmt.Errorf("%w; %s", err, againSafe)
}
