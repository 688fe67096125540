package tools

import (
	"context"
	"image"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A tool's gestures go through these, so that HttpRunner's behaviour parameters apply to every
// tool alike: the screen marked first (pre_mark_operation), the touch made human-like
// (anti_risk). A task without them calls its driver directly.

// gesture is one touch or move as the driver is to make it, in screen pixels.
type gesture struct {
	from, to  device.Point // a touch has from == to
	move      bool         // a swipe or drag from from to to
	taps      int          // touches at from: 2 for a double tap
	hold, dur time.Duration
}

// tapAt touches p for hold (0: a plain tap).
func (t *Task) tapAt(ctx context.Context, p device.Point, hold time.Duration) error {
	g := gesture{from: p, to: p, taps: 1, hold: hold}
	if err := t.act.before(ctx, t, &g); err != nil {
		return err
	}
	return t.Driver.Tap(ctx, g.from, g.hold)
}

// doubleTapAt taps p twice; the driver is a device.DoubleTapper.
func (t *Task) doubleTapAt(ctx context.Context, p device.Point) error {
	g := gesture{from: p, to: p, taps: 2}
	if err := t.act.before(ctx, t, &g); err != nil {
		return err
	}
	return t.Driver.(device.DoubleTapper).DoubleTap(ctx, g.from)
}

// secondaryClickAt right-clicks p; the driver is a device.SecondaryClicker.
func (t *Task) secondaryClickAt(ctx context.Context, p device.Point) error {
	g := gesture{from: p, to: p, taps: 1}
	if err := t.act.before(ctx, t, &g); err != nil {
		return err
	}
	return t.Driver.(device.SecondaryClicker).SecondaryClick(ctx, g.from)
}

// swipeFrom moves a finger from from to to over d, holding first for hold; the driver is a
// device.Swiper.
func (t *Task) swipeFrom(ctx context.Context, from, to device.Point, d, hold time.Duration) error {
	g := gesture{from: from, to: to, move: true, dur: d, hold: hold}
	if err := t.act.before(ctx, t, &g); err != nil {
		return err
	}
	return t.Driver.(device.Swiper).Swipe(ctx, g.from, g.to, g.dur, g.hold)
}

// swipeTook is how long a swipe from → to asked to take d took: d, or longer on a device
// with a top speed (device.SwipeTimer: an arm's finger).
func (t *Task) swipeTook(from, to device.Point, d time.Duration) time.Duration {
	if st, ok := t.Driver.(device.SwipeTimer); ok {
		return st.SwipeTime(from, to, d)
	}
	return d
}

// aimAt says that the next gesture acts on box (screen pixels, e.g. a button's bounds): its
// mark shows the box, and a human-like touch inside it stays inside it.
func (t *Task) aimAt(box image.Rectangle) {
	if t.act != nil {
		t.act.aim = box
	}
}

// aimAtBBox is aimAt for a bbox relative 0-1.
func (t *Task) aimAtBBox(ctx context.Context, b []float64) error {
	if t.act == nil {
		return nil
	}
	s, err := t.act.screen(ctx, t.Driver)
	if err != nil {
		return err
	}
	t.act.aim = image.Rect(scale(b[0], s.Width), scale(b[1], s.Height), scale(b[2], s.Width)+1, scale(b[3], s.Height)+1)
	return nil
}

// before readies g as the task's behaviour asks: made human-like, then marked on the screen it
// acts on. Nothing for a task without behaviour parameters.
func (a *acting) before(ctx context.Context, t *Task, g *gesture) error {
	if a == nil {
		return nil
	}
	defer func() { a.aim = image.Rectangle{} }()
	s, err := a.screen(ctx, t.Driver)
	if err != nil {
		return err
	}
	if a.human {
		humanize(g, a.aim, s)
		a.touches++
	}
	if a.PreMarkOperation {
		a.mark(ctx, t, *g, s)
	}
	return nil
}

// screen is the driver's screen size, asked once a task.
func (a *acting) screen(ctx context.Context, d device.Driver) (device.Size, error) {
	if a.size == (device.Size{}) {
		s, err := d.ScreenSize(ctx)
		if err != nil {
			return device.Size{}, err
		}
		a.size = s
	}
	return a.size, nil
}
