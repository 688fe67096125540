package android

import (
	"context"

	"github.com/corral-farm/corral/nodes/device"
)

// touchscreen is the panel the driver writes touches to and its stream.
type touchscreen struct {
	panel   *touchPanel
	stream  *eventStream
	touches int64 // touches begun: the next tracking id (with the stream's lock held)
}

// nextID is a new tracking id for a touch, wrapping inside the panel's range and never
// negative where the range allows (-1 lifts a finger).
func (t *touchscreen) nextID() int32 {
	lo, hi := int64(t.panel.tracking.min), int64(t.panel.tracking.max)
	if hi >= 0 {
		lo = max(lo, 0)
	}
	id := lo + t.touches%(hi-lo+1)
	t.touches++
	return int32(id)
}

// touchEvents maps pts from the display to the panel and writes gesture on the touchscreen's
// stream. Whatever happens, the finger is lifted before it returns: a gesture that fails or
// whose ctx ends leaves no touch down. done is false when the stream failed twice (see
// onStream): the caller then uses `input`.
func (d *Driver) touchEvents(ctx context.Context, op string, pts []device.Point, gesture func(ctx context.Context, f *finger, at []panelPoint) error) (done bool, err error) {
	g, err := d.displayGeometry(ctx, op)
	if err != nil {
		return true, err
	}
	at := make([]panelPoint, len(pts))
	for i, p := range pts {
		if at[i], err = d.touch.panel.toPanel(p, g); err != nil {
			return true, d.fail(ctx, op, err, "get_screen_size tells the screen's size now")
		}
	}
	t := d.touch
	return d.onStream(ctx, t.stream, op, func(ctx context.Context) error {
		f := &finger{t: t}
		err := gesture(ctx, f, at)
		if f.down {
			if lerr := f.lift(); err == nil {
				err = lerr
			}
		}
		return err
	})
}

// finger is one finger on the panel: its reports in multitouch protocol B, always in slot 0.
type finger struct {
	t    *touchscreen
	id   int32
	down bool
}

// press puts the finger down at p with a new tracking id: slot, tracking id, BTN_TOUCH (and
// BTN_TOOL_FINGER), position, and a middling pressure and contact size where the panel reports
// them.
func (f *finger) press(p panelPoint) error {
	pn := f.t.panel
	f.id = f.t.nextID()
	evs := []inputEvent{{evAbs, absMTSlot, pn.slot.min}, {evAbs, absMTTrackingID, f.id}}
	if pn.btnTouch {
		evs = append(evs, inputEvent{evKey, btnTouch, 1})
	}
	if pn.btnToolFinger {
		evs = append(evs, inputEvent{evKey, btnToolFinger, 1})
	}
	evs = append(evs, inputEvent{evAbs, absMTPositionX, p.x}, inputEvent{evAbs, absMTPositionY, p.y})
	if pn.hasPressure {
		evs = append(evs, inputEvent{evAbs, absMTPressure, pn.pressure.mid()})
	}
	if pn.hasMajor {
		evs = append(evs, inputEvent{evAbs, absMTTouchMajor, pn.major.mid()})
	}
	if err := f.t.stream.send(evs...); err != nil {
		return err
	}
	f.down = true
	return nil
}

// move moves the finger to p.
func (f *finger) move(p panelPoint) error {
	return f.t.stream.send(inputEvent{evAbs, absMTPositionX, p.x}, inputEvent{evAbs, absMTPositionY, p.y})
}

// lift takes the finger off: tracking id -1, BTN_TOUCH (and BTN_TOOL_FINGER) released.
func (f *finger) lift() error {
	pn := f.t.panel
	f.down = false // tried once: a stream that failed is opened again, and a new touch replaces this one
	evs := []inputEvent{{evAbs, absMTTrackingID, -1}}
	if pn.btnTouch {
		evs = append(evs, inputEvent{evKey, btnTouch, 0})
	}
	if pn.btnToolFinger {
		evs = append(evs, inputEvent{evKey, btnToolFinger, 0})
	}
	return f.t.stream.send(evs...)
}
