package wda

import (
	"context"
	"net/http"
)

// Home goes to the home screen. It needs no session.
func (c *Client) Home(ctx context.Context) error {
	_, err := c.post(ctx, "/wda/homescreen", nil)
	return err
}

// Lock locks the phone: the screen goes dark.
func (c *Client) Lock(ctx context.Context) error {
	_, err := c.post(ctx, "/wda/lock", nil)
	return err
}

// Unlock wakes the phone and unlocks it. A phone with a passcode stays on its passcode screen
// and WebDriverAgent answers an error: type the passcode with Keys, then check Locked.
func (c *Client) Unlock(ctx context.Context) error {
	_, err := c.post(ctx, "/wda/unlock", nil)
	return err
}

// Locked reports whether the phone is locked (dark, or showing its lock screen).
func (c *Client) Locked(ctx context.Context) (bool, error) {
	const route = "/wda/locked"
	v, err := c.get(ctx, route)
	if err != nil {
		return false, err
	}
	b, err := decodeValue[bool](v, "locked")
	return b, c.named(http.MethodGet, route, err)
}
