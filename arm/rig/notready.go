package rig

import (
	"context"
	"fmt"
	"image"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A rig of a rigs file that cannot be reached or calibrated at start shows offline with why,
// as one whose link was lost does, while keepRig tries again: it was invisible, only its
// node's log said "arm rig not ready". notReady stands for it in the node meanwhile.

// notReady is a rig that is not ready: it does nothing and says why. It is a device.Halter so
// that its node keeps an emergency_stop of it, and the rig comes back halted.
type notReady struct {
	info device.Info
	why  error
}

func (n notReady) Info() device.Info { return n.info }

func (n notReady) ScreenSize(context.Context) (device.Size, error) { return device.Size{}, n.err() }

func (n notReady) Screenshot(context.Context) (image.Image, error) { return nil, n.err() }

func (n notReady) Tap(context.Context, device.Point, time.Duration) error { return n.err() }

func (n notReady) Health(context.Context) error { return n.err() }

func (n notReady) Halt(context.Context, device.Stop) error { return n.err() }

func (notReady) ReportHalt(func(string)) {}

func (n notReady) err() error {
	return &device.Error{Kind: kind, Serial: n.info.Serial, Op: "connect", Err: n.why, Hint: "the node tries again every " + redial.String()}
}

// showNotReady shows rig r offline on reg with why it is not ready, unless it shows that
// already (shown is what it last showed; the result is what it shows now): each showing is
// two device events, not one per retry.
func showNotReady(reg device.Registry, r RigSpec, err error, shown string) string {
	reason := fmt.Sprintf("arm rig not ready, trying again every %s: %v", redial, err)
	if reason == shown {
		return shown
	}
	model := r.Model
	if model == "" {
		model = "iPhone"
	}
	reg.AddDriver(notReady{info: device.Info{Serial: r.Serial, Platform: device.PlatformArm, Model: model, Brand: "Corral arm",
		Extra: map[string]string{"grbl": r.GRBL}}, why: err})
	reg.RemoveDevice(r.Serial, reason)
	return reason
}
