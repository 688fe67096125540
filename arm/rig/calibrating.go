package rig

import (
	"context"
	"errors"
	"image"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A rig calibrating at its node's start is in the farm meanwhile, unhealthy ("calibrating"),
// so that emergency_stop reaches its driver: the stop cuts the calibration short (a feed
// hold, a reset, the finger up, as a stop mid-gesture) and the rig is served halted. It was
// not in the farm at all on a first calibration (unknown_device), and on a retry the stop went
// to notReady, which its driver never heard of: the probes went on and the rig came online.

// errStoppedCalibrating is the cause a stop cancels a start-up calibration with.
var errStoppedCalibrating = errors.New("stopped by emergency_stop while calibrating")

// calibrating stands for rig d in the farm while it calibrates at start; cancel ends the
// calibration.
type calibrating struct {
	d      *Driver
	cancel context.CancelCauseFunc
}

func (c calibrating) Info() device.Info { return c.d.info }

func (c calibrating) ScreenSize(context.Context) (device.Size, error) { return device.Size{}, c.err() }

func (c calibrating) Screenshot(context.Context) (image.Image, error) { return nil, c.err() }

func (c calibrating) Tap(context.Context, device.Point, time.Duration) error { return c.err() }

func (c calibrating) Health(context.Context) error { return c.err() }

// Halt halts the rig (Driver.Halt: the halt held from now on, the controller stopped), keeps
// the halt in the farm at once (the driver's watch that keeps it starts only when it is
// served), and ends the calibration, which then serves the rig halted.
func (c calibrating) Halt(ctx context.Context, stop device.Stop) error {
	err := c.d.Halt(ctx, stop)
	c.d.keepHalt(stop.Reason())
	c.cancel(errStoppedCalibrating)
	return err
}

// ReportHealth tells the farm at once that the rig is not to be given tasks: without it the
// stand-in would show online, and free, until the node's first health check.
func (c calibrating) ReportHealth(report func(error)) { report(c.err()) }

// ReportHalt reports nothing: the driver reports its halt once it is served, soon after a
// stop ends the calibration.
func (calibrating) ReportHalt(func(string)) {}

func (c calibrating) err() error {
	return c.d.wrap("calibrate", ErrCalibrating, "the node calibrates the rig as it starts (its finger probes the screen); "+
		"it takes tasks once calibrated; emergency_stop stops it meanwhile")
}
