package wda

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
)

// WindowSize returns the size of the screen in points, the unit of every coordinate the client
// takes (pixels are points times Scale).
func (c *Client) WindowSize(ctx context.Context) (w, h float64, err error) {
	const route = "/window/size"
	v, err := c.inSession(ctx, http.MethodGet, route, nil)
	if err != nil {
		return 0, 0, err
	}
	w, h, err = decodeSize(v, "the window size")
	return w, h, c.named(http.MethodGet, "/session/:sid"+route, err)
}

// Scale returns the pixels per point of the screen: 2 on an iPhone SE, 3 on most others.
func (c *Client) Scale(ctx context.Context) (float64, error) {
	const route = "/wda/screen"
	v, err := c.inSession(ctx, http.MethodGet, route, nil)
	if err != nil {
		return 0, err
	}
	s, err := decodeScale(v)
	return s, c.named(http.MethodGet, "/session/:sid"+route, err)
}

func decodeScale(v json.RawMessage) (float64, error) {
	s, err := decodeValue[struct {
		Scale json.RawMessage `json:"scale"`
	}](v, "the screen")
	if err != nil {
		return 0, err
	}
	f, err := decodeNumber(s.Scale, "the screen's scale", 0, maxScale)
	if err == nil && f == 0 {
		err = fmt.Errorf("%w: the screen's scale is 0", ErrBadAnswer)
	}
	return f, err
}

const maxScale = 16

// Screenshot returns the screen as PNG bytes, in pixels. It needs no session.
func (c *Client) Screenshot(ctx context.Context) ([]byte, error) {
	const route = "/screenshot"
	v, err := c.get(ctx, route)
	if err != nil {
		return nil, err
	}
	b, err := decodeScreenshot(v)
	return b, c.named(http.MethodGet, route, err)
}

// maxSide bounds a screenshot's width and height in pixels.
const maxSide = 16384

// decodeScreenshot decodes the base64 PNG WebDriverAgent sends, which it breaks into lines of 64
// characters, and checks that it is a PNG of a sane size.
func decodeScreenshot(v json.RawMessage) ([]byte, error) {
	s, err := decodeValue[string](v, "the screenshot")
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(stripSpace(s))
	if err != nil {
		return nil, fmt.Errorf("%w: the screenshot is not base64: %s", ErrBadAnswer, err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b)) // "not a PNG file" when it is not
	if err != nil {
		return nil, fmt.Errorf("%w: the screenshot: %s", ErrBadAnswer, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxSide || cfg.Height > maxSide {
		return nil, fmt.Errorf("%w: the screenshot is %dx%d pixels", ErrBadAnswer, cfg.Width, cfg.Height)
	}
	return b, nil
}

// stripSpace removes the line breaks (and any other ASCII white space) from base64 text.
func stripSpace(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		clean = !isSpace(s[i])
	}
	if clean {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			b = append(b, s[i])
		}
	}
	return string(b)
}

func isSpace(c byte) bool { return c == '\r' || c == '\n' || c == ' ' || c == '\t' }
