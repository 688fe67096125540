package wdasim

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
)

// screenshot answers GET /screenshot: the screen in pixels, as base64 PNG in lines of 64
// characters (WebDriverAgent's NSDataBase64Encoding64CharacterLineLength).
func (s *Server) screenshot(c *call) (any, error) {
	b, err := s.pngOf(c.ctx)
	if err != nil {
		return nil, err
	}
	return base64Lines(b), nil
}

// pngOf encodes what the screen shows: the phone's screen, or black while it is dark.
func (s *Server) pngOf(ctx context.Context) ([]byte, error) {
	var img image.Image
	if s.isScreenOff() {
		sz, err := s.screenSize(ctx)
		if err != nil {
			return nil, err
		}
		img = image.NewGray(image.Rect(0, 0, sz.Width, sz.Height)) // all zero: black
	} else {
		var err error
		if img, err = s.phone.Screenshot(ctx); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	// BestSpeed: a screenshot is encoded once and read once, over loopback or USB.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, errUnknown("encoding the screenshot: " + err.Error())
	}
	return buf.Bytes(), nil
}

func base64Lines(b []byte) string {
	const line = 64
	enc := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	sb.Grow(len(enc) + len(enc)/line*2)
	for len(enc) > line {
		sb.WriteString(enc[:line])
		sb.WriteString("\r\n")
		enc = enc[line:]
	}
	sb.WriteString(enc)
	return sb.String()
}
