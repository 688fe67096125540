package tools

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // a template may be a GIF; it is sent as PNG
	"image/png"
	"io"
	"io/fs"
	"os"
	"strings"
)

// MaxTemplateBytes bounds tap_cv's template image: an icon or a button, not a screen.
const MaxTemplateBytes = 2 << 20

// template is tap_cv's template image: PNG or JPEG bytes for the worker, and its size.
type template struct {
	data []byte
	size image.Point
	from string // "a file", "base64", "a data URL": for messages
}

// loadTemplate reads tap_cv's imagePath: a data URL (data:image/png;base64,...), base64, or a
// file on the node (not on a shared node, which reads no files for callers). It checks that it
// is an image no larger than a screen of size.
func loadTemplate(spec string, shared bool, screen image.Point) (template, error) {
	spec = strings.TrimSpace(spec)
	var tm template
	var raw []byte
	var err error
	switch {
	case len(spec) > 5 && strings.EqualFold(spec[:5], "data:"):
		tm.from = "a data URL"
		meta, payload, ok := strings.Cut(spec[5:], ",")
		if !ok || !strings.HasSuffix(strings.ToLower(meta), ";base64") {
			return tm, BadInput("imagePath is a data URL without base64 data: write it data:image/png;base64,<data>")
		}
		if raw, err = decodeBase64(payload); err != nil {
			return tm, BadInput("imagePath's data URL does not hold valid base64: %v", err)
		}
	case isBase64(spec):
		tm.from = "base64"
		if raw, err = decodeBase64(spec); err != nil {
			if _, serr := os.Stat(spec); serr != nil {
				return tm, BadInput("imagePath is neither valid base64 (%v) nor a file on the node", err)
			}
			tm.from, raw, err = "a file", nil, nil
		}
	default:
		tm.from = "a file"
		// Shorter than isBase64 takes for base64 unseen: when no file is so named (a shared
		// node reads none), base64 that decodes is what it is, told as not an image (no image
		// is that small) rather than as a missing file.
		if b, ok := shortBase64(spec); ok {
			switch {
			case shared:
				tm.from, raw = "base64: this node serves a shared farm and reads no files for callers", b
			case !fileExists(spec):
				tm.from, raw = "base64, as no file on the node has that name", b
			}
		}
	}
	if tm.from == "a file" {
		if shared {
			return tm, BadInput("this node serves a shared farm and reads no files for callers: give imagePath as base64 or a data URL (data:image/png;base64,...)")
		}
		if raw, err = readTemplateFile(spec); err != nil {
			return tm, err
		}
	}
	if len(raw) > MaxTemplateBytes {
		return tm, BadInput("the template (%s) is %d bytes; at most %d: cut the icon or button out of a screenshot", tm.from, len(raw), MaxTemplateBytes)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return tm, BadInput("the template (%s) is not an image: give a PNG or JPEG", tm.from)
	}
	tm.size = image.Pt(cfg.Width, cfg.Height)
	switch {
	case cfg.Width < 4 || cfg.Height < 4:
		return tm, BadInput("the template is %dx%d pixels: too small to match; cut a larger piece of the screen", cfg.Width, cfg.Height)
	case cfg.Width > screen.X || cfg.Height > screen.Y:
		return tm, BadInput("the template (%dx%d) is larger than the screen (%dx%d): it cannot show on it; cut the icon out of a screenshot of this device",
			cfg.Width, cfg.Height, screen.X, screen.Y)
	}
	tm.data = raw
	if format != "png" && format != "jpeg" {
		img, _, err := image.Decode(bytes.NewReader(raw))
		if err != nil {
			return tm, BadInput("the template (%s, %s) does not decode: %v", tm.from, format, err)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return tm, err
		}
		tm.data = buf.Bytes()
	}
	return tm, nil
}

// readTemplateFile reads a template file on the node, within MaxTemplateBytes.
func readTemplateFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, BadInput("imagePath %q: no such file on the node (give a file on the node running the device, base64 or a data URL)", clip(path))
		}
		return nil, BadInput("imagePath %q: %v", clip(path), err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, BadInput("imagePath %q is not a regular file", clip(path))
	}
	raw, err := io.ReadAll(io.LimitReader(f, MaxTemplateBytes+1))
	if err != nil {
		return nil, BadInput("imagePath %q: %v", clip(path), err)
	}
	return raw, nil
}

// isBase64 says whether s is written in a base64 alphabet (standard or URL, padded or not),
// with line breaks allowed: a file path has a dot or a character base64 has not.
func isBase64(s string) bool {
	return len(s) >= 16 && inBase64Alphabet(s)
}

// inBase64Alphabet says whether every byte of s is of a base64 alphabet or a line break.
func inBase64Alphabet(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			c == '+' || c == '/' || c == '-' || c == '_' || c == '=' || c == '\n' || c == '\r') {
			return false
		}
	}
	return true
}

// shortBase64 decodes s if it is too short for isBase64 but written in a base64 alphabet
// and decodes.
func shortBase64(s string) ([]byte, bool) {
	if s == "" || len(s) >= 16 || !inBase64Alphabet(s) {
		return nil, false
	}
	b, err := decodeBase64(s)
	return b, err == nil && len(b) > 0
}

// fileExists says whether path names something on the node.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// decodeBase64 decodes standard or URL base64, padded or not, ignoring line breaks.
func decodeBase64(s string) ([]byte, error) {
	s = strings.NewReplacer("\n", "", "\r", "", " ", "").Replace(s)
	if len(s) > MaxTemplateBytes*4/3+8 {
		return nil, fmt.Errorf("%d characters, more than a %d-byte image", len(s), MaxTemplateBytes)
	}
	var first error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err == nil {
			return b, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}
