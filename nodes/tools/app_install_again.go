package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/corral-farm/corral/broker"
)

// againSafe is what a failed install adds: an install cut off mid-push (the adb server's
// connection, a cable) left the caller guessing whether the app was half installed, or
// whether a second call would do harm. Neither: the drivers copy the whole file to the device
// before installing it (Android: push, then pm install -r; iOS: an AFC copy, then
// installation_proxy), and installing it again replaces the app, its data kept.
const againSafe = "app_install is safe to call again: nothing is installed until the whole file is on the device, " +
	"and installing it again replaces the app, its data kept"

// downloadSafe is what a failed download adds: a download cut off (the server hanging up
// mid-body, a connection reset, a server error) left the caller guessing too, and the answer
// is plainer still: the file is fetched whole onto the node before the device gets any of it.
const downloadSafe = "app_install is safe to call again: the download stopped on the node, before anything reached the device, " +
	"so nothing was installed"

// tooLarge marks a download refused for the app's size: calling again would not help, so it
// does not say it is safe to.
type tooLarge struct{ error }

func (e tooLarge) Unwrap() error { return e.error }

// downloadAgain is the error of a failed download of appUrl, saying that app_install may be
// called again. The caller's mistakes (a URL the server does not have, bad_input), an app over
// the node's limit and a call aborted or timed out keep their own words.
func downloadAgain(ctx context.Context, err error) error {
	var big tooLarge
	switch {
	case ctx.Err() != nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &big), ErrorCode(err) == broker.CodeBadInput:
		return err
	}
	return fmt.Errorf("%w; %s", err, downloadSafe)
}

// installAgain is the error of a failed install on the device, saying that app_install may
// be called again. The caller's mistakes (a file refused for what it is), a device that cannot
// install and a call aborted or timed out keep their own words. What is the caller's mistake
// is the code the answer carries, ErrorCode's: an OpError's own code, whatever it wraps (a
// driver_error around device.ErrBadInput is answered driver_error, so it says it too).
func installAgain(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	switch ErrorCode(err) {
	case broker.CodeBadInput, broker.CodeUnsupported:
		return err
	}
	return fmt.Errorf("%w; %s", err, againSafe)
}
