package wda

import (
	"context"
	"net/http"
)

// Keys types text on the keyboard that shows, into the focused field. "\b" deletes a character
// and "\n" presses return, as on the iOS keyboard.
func (c *Client) Keys(ctx context.Context, text string) error {
	if text == "" {
		return nil
	}
	// One string per character, as WebDriver clients send it; WebDriverAgent joins them.
	chars := make([]string, 0, len(text))
	for _, r := range text {
		chars = append(chars, string(r))
	}
	_, err := c.inSession(ctx, http.MethodPost, "/wda/keys", map[string][]string{"value": chars})
	return err
}

// Hardware buttons PressButton knows. iOS has no back button.
const (
	ButtonHome       = "home"
	ButtonVolumeUp   = "volumeUp"
	ButtonVolumeDown = "volumeDown"
)

// PressButton presses a hardware button: ButtonHome, ButtonVolumeUp or ButtonVolumeDown.
func (c *Client) PressButton(ctx context.Context, name string) error {
	_, err := c.inSession(ctx, http.MethodPost, "/wda/pressButton", map[string]string{"name": name})
	return err
}
