package rig

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// The phone under an arm is an iPhone (the PhysiClaw seed's): it has no HOME or BACK button,
// only gestures, which PressKey makes with the finger.
const (
	homeSwipe = 200 * time.Millisecond // up from the bottom edge to 60% of the height
	backSwipe = 300 * time.Millisecond // right from the left edge to 60% of the width
)

// PressKey makes the gesture of a key: HOME swipes up from the bottom edge, BACK right from
// the left edge. The rig has no other keys: it has one finger on the glass.
func (d *Driver) PressKey(ctx context.Context, key string) error {
	s, err := d.ScreenSize(ctx)
	if err != nil {
		return err
	}
	w, h := s.Width, s.Height
	switch strings.TrimPrefix(strings.ToUpper(key), "KEYCODE_") {
	case "HOME":
		return d.Swipe(ctx, device.Point{X: w / 2, Y: h - 1}, device.Point{X: w / 2, Y: h * 2 / 5}, homeSwipe, 0)
	case "BACK":
		return d.Swipe(ctx, device.Point{X: 0, Y: h / 2}, device.Point{X: w * 3 / 5, Y: h / 2}, backSwipe, 0)
	}
	return d.wrap("press key", fmt.Errorf("%w: %q", ErrUnknownKey, key),
		"an arm makes HOME and BACK as gestures; it cannot press the phone's side buttons")
}
