package wdasim

import "encoding/base64"

// maxPasteboard bounds what /wda/setPasteboard takes.
const maxPasteboard = 1 << 20

// setPasteboard answers POST /session/:sid/wda/setPasteboard {content: base64, contentType}:
// plain text goes on the phone's clipboard; other content types are WDA's error.
func (s *Server) setPasteboard(c *call) (any, error) {
	var a struct {
		Content     string `json:"content"`
		ContentType string `json:"contentType"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	if a.ContentType != "" && a.ContentType != "plaintext" {
		return nil, errInvalidArgument("unsupported contentType " + a.ContentType + ": only plaintext is simulated")
	}
	if len(a.Content) > maxPasteboard {
		return nil, errInvalidArgument("content too large")
	}
	text, err := base64.StdEncoding.DecodeString(a.Content)
	if err != nil {
		return nil, errInvalidArgument("content is not base64: " + err.Error())
	}
	return nil, s.phone.SetClipboard(c.ctx, string(text))
}
