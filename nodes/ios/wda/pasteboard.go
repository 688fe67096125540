package wda

import (
	"context"
	"encoding/base64"
	"net/http"
)

// SetPasteboard puts text on the phone's pasteboard (WebDriverAgent's /wda/setPasteboard:
// the content goes base64-encoded, as plain text).
func (c *Client) SetPasteboard(ctx context.Context, text string) error {
	_, err := c.inSession(ctx, http.MethodPost, "/wda/setPasteboard",
		map[string]string{"content": base64.StdEncoding.EncodeToString([]byte(text)), "contentType": "plaintext"})
	return err
}
