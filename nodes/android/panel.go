package android

import (
	"errors"
	"fmt"
	"math"

	"github.com/corral-farm/corral/nodes/device"
)

// touchPanel is the touchscreen the driver writes touches to: its event device and what it
// reports. Its axes are in the panel's own units, which on many phones are not pixels (0–4095
// on a 1080×2400 screen, say), in the display's natural orientation.
type touchPanel struct {
	path, name string
	x, y       absRange
	slot       absRange // ABS_MT_SLOT: protocol B's contact slots
	tracking   absRange // ABS_MT_TRACKING_ID: the ids given to contacts
	// Optional axes and keys, sent when the panel has them.
	pressure, major         absRange
	hasPressure, hasMajor   bool
	btnTouch, btnToolFinger bool
}

// String describes the panel as Info.Extra shows it: "/dev/input/event2 (sec_touchscreen,
// 0-4095 x 0-4095)".
func (p *touchPanel) String() string {
	return fmt.Sprintf("%s (%s, %d-%d x %d-%d)", p.path, p.name, p.x.min, p.x.max, p.y.min, p.y.max)
}

// errNoTouchscreen: getevent lists no device with multitouch positions.
var errNoTouchscreen = errors.New("no touchscreen in getevent -lp")

// findTouchscreen picks the touchscreen among devs: a device with ABS_MT_POSITION_X and Y,
// preferring one with INPUT_PROP_DIRECT (a screen, not a touchpad), and refusing one marked
// INPUT_PROP_POINTER. It must speak multitouch protocol B (ABS_MT_SLOT, ABS_MT_TRACKING_ID),
// the only one the driver writes.
func findTouchscreen(devs []inputDevice) (*touchPanel, error) {
	var best *inputDevice
	for i := range devs {
		d := &devs[i]
		_, hasX := d.abs[absMTPositionX]
		_, hasY := d.abs[absMTPositionY]
		if !hasX || !hasY || d.hasProp("INPUT_PROP_POINTER") {
			continue
		}
		if best == nil || d.hasProp("INPUT_PROP_DIRECT") && !best.hasProp("INPUT_PROP_DIRECT") {
			best = d
		}
	}
	if best == nil {
		return nil, errNoTouchscreen
	}
	slot, hasSlot := best.abs[absMTSlot]
	tracking, hasTracking := best.abs[absMTTrackingID]
	if !hasSlot || !hasTracking {
		return nil, fmt.Errorf("%s (%s) has no ABS_MT_SLOT or ABS_MT_TRACKING_ID: multitouch protocol A, which the driver does not write", best.path, best.name)
	}
	p := &touchPanel{path: best.path, name: best.name, x: best.abs[absMTPositionX], y: best.abs[absMTPositionY],
		slot: slot, tracking: tracking, btnTouch: best.hasKey(btnTouch), btnToolFinger: best.hasKey(btnToolFinger)}
	p.pressure, p.hasPressure = best.abs[absMTPressure]
	p.major, p.hasMajor = best.abs[absMTTouchMajor]
	return p, nil
}

// panelPoint is a position in the panel's units.
type panelPoint struct{ x, y int32 }

// geometry is the display as it is now: its size in the current orientation (the `wm size`
// override if any, turned) and its rotation in quarter turns from the natural orientation.
type geometry struct {
	size     device.Size
	rotation int
}

// toPanel maps the pixel pt of the display as g describes it to the panel: turned back to the
// natural orientation (the panel's), then scaled from pixels to the panel's range. The centre
// of the pixel is what is mapped. A rotation of r shows the natural frame turned r quarter
// turns counter-clockwise, as Android's ROTATION_90 and so on.
func (p *touchPanel) toPanel(pt device.Point, g geometry) (panelPoint, error) {
	w, h := float64(g.size.Width), float64(g.size.Height)
	if pt.X < 0 || pt.Y < 0 || pt.X >= g.size.Width || pt.Y >= g.size.Height {
		return panelPoint{}, fmt.Errorf("%w: point (%d, %d) is off the %dx%d screen", ErrBadArgument, pt.X, pt.Y, g.size.Width, g.size.Height)
	}
	x, y := (float64(pt.X)+0.5)/w, (float64(pt.Y)+0.5)/h
	var u, v float64 // fractions of the natural frame's width and height
	switch g.rotation {
	case 1:
		u, v = 1-y, x
	case 2:
		u, v = 1-x, 1-y
	case 3:
		u, v = y, 1-x
	default:
		u, v = x, y
	}
	return panelPoint{p.x.at(u), p.y.at(v)}, nil
}

// at is the value at fraction f (0 to 1) of the range.
func (r absRange) at(f float64) int32 {
	span := float64(r.max) - float64(r.min) + 1
	v := float64(r.min) + math.Floor(f*span)
	return int32(max(float64(r.min), min(v, float64(r.max))))
}

// mid is the middle of the range: the pressure and contact size of a finger resting lightly.
func (r absRange) mid() int32 { return int32((int64(r.min) + int64(r.max)) / 2) }
