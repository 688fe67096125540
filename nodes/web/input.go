package web

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/nodes/device"
)

// wait pauses for dt, or until ctx ends.
func wait(ctx context.Context, dt time.Duration) error {
	if dt <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(dt)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// touch sends a touch event (touchEnd when x, y are nil).
func touch(ctx context.Context, t *chromedp.Target, kind input.DispatchTouchEventType, at ...[2]float64) error {
	pts := []*input.TouchPoint{}
	for _, p := range at {
		pts = append(pts, &input.TouchPoint{X: p[0], Y: p[1], RadiusX: ptr(1.0), RadiusY: ptr(1.0), Force: ptr(1.0), ID: ptr(0.0)})
	}
	return send(ctx, func(ctx context.Context) error {
		_, err := cdp.Call(ctx, t, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: kind, TouchPoints: pts})
		return err
	})
}

// mouse sends a mouse event with button (none, left, right) pressed clicks times.
func mouse(ctx context.Context, t *chromedp.Target, kind input.DispatchMouseEventType, x, y float64, button input.MouseButton, clicks int64) error {
	var buttons int64
	switch {
	case kind == input.DispatchMouseEventTypeMouseReleased || kind == input.DispatchMouseEventTypeMouseMoved:
	case button == input.MouseButtonLeft:
		buttons = 1
	case button == input.MouseButtonRight:
		buttons = 2
	}
	return send(ctx, func(ctx context.Context) error {
		_, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: kind, X: x, Y: y,
			Button: button, Buttons: buttons, ClickCount: clicks})
		return err
	})
}

func ptr[T any](v T) *T { return &v }

// press is a finger (touch profiles) or the left button (desktop) down at x, y for hold,
// then up: a tap, a long press, or the second tap of a double tap (clicks 2).
func (d *Driver) press(x, y float64, hold time.Duration, clicks int64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if d.prof.Mobile {
			if err := touch(ctx, t, input.DispatchTouchEventTypeTouchStart, [2]float64{x, y}); err != nil {
				return err
			}
			if err := held(ctx, hold); err != nil {
				return err
			}
			return touch(ctx, t, input.DispatchTouchEventTypeTouchEnd)
		}
		if err := mouse(ctx, t, input.DispatchMouseEventTypeMousePressed, x, y, input.MouseButtonLeft, clicks); err != nil {
			return err
		}
		if err := held(ctx, hold); err != nil {
			return err
		}
		return mouse(ctx, t, input.DispatchMouseEventTypeMouseReleased, x, y, input.MouseButtonLeft, clicks)
	})
}

// Tap touches p (the screenshot's pixels) for hold: touch events on a touch profile, the
// mouse on a desktop one.
func (d *Driver) Tap(ctx context.Context, p device.Point, hold time.Duration) error {
	if err := d.onScreen("tap", p); err != nil {
		return err
	}
	return d.do(ctx, "tap", settle(d.atPixel(p, func(x, y float64) chromedp.Action[chromedp.Void] {
		return d.press(x, y, hold, 1)
	})))
}

// doubleTapGap is the pause between a double tap's taps: well inside a browser's double-tap
// window.
const doubleTapGap = 80 * time.Millisecond

// DoubleTap taps p twice in quick succession.
func (d *Driver) DoubleTap(ctx context.Context, p device.Point) error {
	if err := d.onScreen("double tap", p); err != nil {
		return err
	}
	return d.do(ctx, "double tap", settle(d.atPixel(p, func(x, y float64) chromedp.Action[chromedp.Void] {
		// both taps where the first landed: a double tap may zoom the page once it is done
		return chromedp.Steps(d.press(x, y, 0, 1), chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			return held(ctx, doubleTapGap)
		}), d.press(x, y, 0, 2))
	})))
}

// swipeStep is how often a swipe's finger reports its move: a 60 Hz screen's frame.
const swipeStep = 16 * time.Millisecond

// Swipe moves a finger (the left button on a desktop profile) from one point to the other
// over dur, after holding still for hold.
func (d *Driver) Swipe(ctx context.Context, from, to device.Point, dur, hold time.Duration) error {
	for _, p := range []device.Point{from, to} {
		if err := d.onScreen("swipe", p); err != nil {
			return err
		}
	}
	steps := max(5, int(dur/swipeStep))
	return d.do(ctx, "swipe", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		// The finger's path is fixed on the screen: read against the viewport as the swipe
		// starts, though the page scrolls under it.
		v, err := visualViewport(ctx, t)
		if err != nil {
			return err
		}
		x0, y0 := d.input(v, from)
		x1, y1 := d.input(v, to)
		at := func(i int) (float64, float64) {
			f := float64(i) / float64(steps)
			return x0 + (x1-x0)*f, y0 + (y1-y0)*f
		}
		down, move, up := func(x, y float64) error {
			return touch(ctx, t, input.DispatchTouchEventTypeTouchStart, [2]float64{x, y})
		},
			func(x, y float64) error {
				return touch(ctx, t, input.DispatchTouchEventTypeTouchMove, [2]float64{x, y})
			},
			func(x, y float64) error { return touch(ctx, t, input.DispatchTouchEventTypeTouchEnd) }
		if !d.prof.Mobile {
			down = func(x, y float64) error {
				return mouse(ctx, t, input.DispatchMouseEventTypeMousePressed, x, y, input.MouseButtonLeft, 1)
			}
			move = func(x, y float64) error {
				return mouse(ctx, t, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonLeft, 0)
			}
			up = func(x, y float64) error {
				return mouse(ctx, t, input.DispatchMouseEventTypeMouseReleased, x, y, input.MouseButtonLeft, 1)
			}
		}
		if err := down(x0, y0); err != nil {
			return err
		}
		if err := held(ctx, hold); err != nil {
			return err
		}
		for i := 1; i <= steps; i++ {
			if err := held(ctx, dur/time.Duration(steps)); err != nil {
				return err
			}
			if err := move(at(i)); err != nil {
				return err
			}
		}
		if err := up(x1, y1); err != nil {
			return err
		}
		// the page flings on after the lift: answer once it is still (still.go)
		_, err = untilStill(swipeStill)(ctx, t)
		return err
	}))
}

// InputText types text into the focused element, as an input method commits it. With no
// editable element focused it refuses, as a phone with no keyboard up would: a browser drops
// such text without a word.
func (d *Driver) InputText(ctx context.Context, text string) error {
	return d.do(ctx, "input text", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		f, err := answered(ctx, func(c context.Context) (focus, error) { return chromedp.Evaluate[focus](focusJS)(c, t) })
		if err != nil {
			return err
		}
		if !f.Editable {
			return d.wrap("input text", noFocus{fmt.Errorf("%w (in front: %s)", ErrNoFocus, f.What)},
				"tap the field first (tap_by_selector with its selector, or tap_xy on it), then input")
		}
		return send(ctx, func(ctx context.Context) error {
			_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
			return err
		})
	}))
}

// noFocus is ErrNoFocus as what it is, the caller's mistake (device.ErrBadInput): nothing was
// typed, and the tools answer bad_input, not driver_error.
type noFocus struct{ error }

func (e noFocus) Unwrap() error { return e.error }

func (e noFocus) Is(target error) bool { return target == device.ErrBadInput }

// keys are the keys a browser device presses as keyboard keys: DOM key, code, key code, text.
var keys = map[string]struct {
	key, code string
	vk        int64
	text      string
}{
	"ENTER":  {"Enter", "Enter", 13, "\r"},
	"DEL":    {"Backspace", "Backspace", 8, ""},
	"TAB":    {"Tab", "Tab", 9, ""},
	"ESCAPE": {"Escape", "Escape", 27, ""},
}

// validKeys lists what PressKey takes.
const validKeys = "BACK, HOME, ENTER, DEL, TAB, ESCAPE"

// PressKey presses a keyboard key (ENTER, DEL, TAB, ESCAPE), or does what a phone's key does:
// BACK goes back in the tab's history, HOME opens the home page.
func (d *Driver) PressKey(ctx context.Context, key string) error {
	name := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(key)), "KEYCODE_")
	switch name {
	case "BACK":
		return d.back(ctx)
	case "HOME":
		return d.navigate(ctx, "home", d.home)
	}
	k, ok := keys[name]
	if !ok {
		return d.wrap("press key", fmt.Errorf("%w: %q", ErrUnknownKey, key), "a browser device presses "+validKeys)
	}
	return d.do(ctx, "press key", settle(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: k.key, Code: k.code, WindowsVirtualKeyCode: k.vk, NativeVirtualKeyCode: k.vk, Text: k.text}
		if k.text == "" {
			down.Type = input.DispatchKeyEventTypeRawKeyDown
		}
		key := func(p input.DispatchKeyEventParams) func(context.Context) error {
			return func(ctx context.Context) error { _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p); return err }
		}
		if err := send(ctx, key(down)); err != nil {
			return err
		}
		up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: k.key, Code: k.code, WindowsVirtualKeyCode: k.vk, NativeVirtualKeyCode: k.vk}
		return send(ctx, key(up))
	})))
}

// back goes one entry back in the front tab's history.
func (d *Driver) back(ctx context.Context) error {
	return d.do(ctx, "back", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		h, err := answered(ctx, func(c context.Context) (page.GetNavigationHistoryResult, error) {
			return cdp.Call(c, t, page.GetNavigationHistory, cdp.Empty{})
		})
		if err != nil {
			return err
		}
		if h.CurrentIndex <= 0 || h.CurrentIndex >= int64(len(h.Entries)) {
			return d.wrap("back", fmt.Errorf("%w: the tab shows the first page it opened", ErrNoHistory),
				"app_launch a URL, press HOME for the home page, or web_close_tab to close a tab a link opened")
		}
		markSent(ctx) // a browser that dies now may have gone back (died_input.go)
		return chromedp.Do(ctx, chromedp.NavigateToHistoryEntry(h.Entries[h.CurrentIndex-1].ID))
	}))
}

// onScreen refuses a point outside the viewport.
func (d *Driver) onScreen(op string, p device.Point) error {
	w, h := d.prof.pixels()
	if p.X >= 0 && p.Y >= 0 && p.X < w && p.Y < h {
		return nil
	}
	return d.wrap(op, fmt.Errorf("(%d,%d) is %w of %dx%d", p.X, p.Y, ErrOffScreen, w, h),
		fmt.Sprintf("x must be 0..%d and y 0..%d (device pixels)", w-1, h-1))
}
