package ios

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios/wda"
)

// points turns a pixel of the screenshot into WebDriverAgent's points.
func (d *Driver) points(ctx context.Context, op string, p device.Point) (x, y float64, err error) {
	s, err := d.screenInfo(ctx)
	if err != nil {
		return 0, 0, err
	}
	if p.X < 0 || p.Y < 0 || p.X >= s.pixels.Width || p.Y >= s.pixels.Height {
		return 0, 0, d.errorf(op, fmt.Errorf("point (%d,%d) is %w of %dx%d", p.X, p.Y, errOffScreen, s.pixels.Width, s.pixels.Height),
			"use pixels of the screenshot, or relative coordinates")
	}
	return float64(p.X) / s.scale, float64(p.Y) / s.scale, nil
}

// Tap touches p; a hold makes it a touch-and-hold.
func (d *Driver) Tap(ctx context.Context, p device.Point, hold time.Duration) error {
	x, y, err := d.points(ctx, "tap", p)
	if err != nil {
		return err
	}
	if hold > 0 {
		d.gestureSent(hold)
		return d.wdaError("touch and hold", d.wda.TouchAndHold(ctx, x, y, hold))
	}
	return d.wdaError("tap", d.wda.Tap(ctx, x, y))
}

// DoubleTap taps twice at p, as iOS counts a double tap.
func (d *Driver) DoubleTap(ctx context.Context, p device.Point) error {
	x, y, err := d.points(ctx, "double tap", p)
	if err != nil {
		return err
	}
	return d.wdaError("double tap", d.wda.DoubleTap(ctx, x, y))
}

// Swipe moves a finger from one point to another over dur, holding first for hold (a drag).
func (d *Driver) Swipe(ctx context.Context, from, to device.Point, dur, hold time.Duration) error {
	fx, fy, err := d.points(ctx, "swipe", from)
	if err != nil {
		return err
	}
	tx, ty, err := d.points(ctx, "swipe", to)
	if err != nil {
		return err
	}
	d.gestureSent(hold + dur)
	return d.wdaError("swipe", d.wda.Swipe(ctx, fx, fy, tx, ty, dur, hold))
}

// InputText types into the focused field.
func (d *Driver) InputText(ctx context.Context, text string) error {
	return d.keys(ctx, "type", text)
}

// keys types text with WebDriverAgent's /wda/keys, which answers "invalid element state" when
// no keyboard is up: the caller's to fix by tapping a field first.
func (d *Driver) keys(ctx context.Context, op, text string) error {
	err := d.wda.Keys(ctx, text)
	if errors.Is(err, wda.ErrInvalidElementState) {
		return d.errorf(op, ErrNoFocus, "tap the field first (tap_xy on it), then type")
	}
	return d.wdaError(op, err)
}

// wake wakes the screen with WDA's /wda/unlock, which unlocks a phone without a passcode and
// answers an error (a timeout) once a phone with one shows its passcode screen: awake, as asked.
func (d *Driver) wake(ctx context.Context, op string) error {
	err := d.wda.Unlock(ctx)
	var answer *wda.Error
	if errors.As(err, &answer) {
		return nil
	}
	return d.wdaError(op, err)
}

// PressKey presses a key as an iPhone has it: HOME, VOLUME_UP, VOLUME_DOWN and POWER (side
// button: locks, or wakes a locked phone) are buttons; ENTER, DEL and TAB are typed; WAKEUP
// wakes the screen. There is no BACK, MENU or APP_SWITCH.
func (d *Driver) PressKey(ctx context.Context, key string) error {
	k := strings.ToUpper(strings.TrimPrefix(strings.ToUpper(key), "KEYCODE_"))
	switch k {
	case "HOME":
		return d.wdaError("press HOME", d.wda.Home(ctx))
	case "VOLUME_UP", "VOLUME_DOWN":
		return d.wdaError("press "+k, d.wda.PressButton(ctx, map[string]string{"VOLUME_UP": "volumeUp", "VOLUME_DOWN": "volumeDown"}[k]))
	case "ENTER", "DEL", "TAB":
		return d.keys(ctx, "press "+k, map[string]string{"ENTER": "\n", "DEL": "\b", "TAB": "\t"}[k])
	case "WAKEUP":
		return d.wake(ctx, "wake the screen")
	case "POWER":
		locked, err := d.wda.Locked(ctx)
		if err != nil {
			return d.wdaError("press POWER", err)
		}
		if locked {
			return d.wake(ctx, "press POWER (wake)")
		}
		return d.wdaError("press POWER (lock)", d.wda.Lock(ctx))
	}
	return d.errorf("press "+key, errNoKey, "iPhones have HOME, VOLUME_UP, VOLUME_DOWN, POWER, WAKEUP, and ENTER, DEL and TAB on the keyboard; go back with go_back (an edge swipe)")
}

// SetClipboard puts text on the iPhone's pasteboard.
func (d *Driver) SetClipboard(ctx context.Context, text string) error {
	return d.wdaError("set the pasteboard", d.wda.SetPasteboard(ctx, text))
}
