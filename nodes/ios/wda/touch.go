package wda

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"
)

// Tap touches the screen at (x, y) in points.
func (c *Client) Tap(ctx context.Context, x, y float64) error {
	if err := checkPoint("tap", x, y); err != nil {
		return err
	}
	args := map[string]float64{"x": x, "y": y}
	if !c.legacyTap.Load() {
		_, err := c.inSession(ctx, http.MethodPost, "/wda/tap", args)
		if !errors.Is(err, ErrUnknownCommand) {
			return err
		}
		// A WebDriverAgent older than /wda/tap: its element route taps coordinates for an
		// element id it does not know, "0" by custom.
		c.legacyTap.Store(true)
		c.log.Info("wda has no /wda/tap; tapping through /wda/tap/0", "wda", c.base)
	}
	_, err := c.inSession(ctx, http.MethodPost, "/wda/tap/0", args)
	return err
}

// DoubleTap touches (x, y) twice in quick succession.
func (c *Client) DoubleTap(ctx context.Context, x, y float64) error {
	if err := checkPoint("double tap", x, y); err != nil {
		return err
	}
	_, err := c.inSession(ctx, http.MethodPost, "/wda/doubleTap", map[string]float64{"x": x, "y": y})
	return err
}

// TouchAndHold touches (x, y) for d: a long press.
func (c *Client) TouchAndHold(ctx context.Context, x, y float64, d time.Duration) error {
	if err := checkPoint("touch and hold", x, y); err != nil {
		return err
	}
	if d < 0 {
		return fmt.Errorf("wda: touch and hold: the duration is %s; it must be 0 or more", d)
	}
	args := map[string]float64{"x": x, "y": y, "duration": d.Seconds()}
	_, err := c.inSession(ctx, http.MethodPost, "/wda/touchAndHold", args)
	return err
}

// Swipe moves a finger from one point to another: down at the first, still for hold, then to
// the second over d, and up. It is sent as W3C pointer actions, which every WebDriverAgent
// performs with the timing asked for.
func (c *Client) Swipe(ctx context.Context, fromX, fromY, toX, toY float64, d, hold time.Duration) error {
	body, err := swipeActions(fromX, fromY, toX, toY, d, hold)
	if err != nil {
		return err
	}
	_, err = c.inSession(ctx, http.MethodPost, "/actions", body)
	return err
}

// checkPoint refuses what JSON cannot carry, before anything is sent. Whether the point is on
// the screen is WebDriverAgent's to say.
func checkPoint(op string, coords ...float64) error {
	for _, v := range coords {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("wda: %s: coordinates must be finite numbers of points, got %v", op, coords)
		}
	}
	return nil
}
