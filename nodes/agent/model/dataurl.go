package model

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// imageMIMEs are the picture types OpenAI-compatible vision endpoints accept.
var imageMIMEs = map[string]bool{"image/jpeg": true, "image/png": true, "image/webp": true, "image/gif": true}

// DataURL encodes img as a data: URL (data:image/png;base64,...), the form image_url parts
// carry. An empty MIME is sniffed from the bytes; a MIME that disagrees with them is an error,
// since servers decode by the bytes and a wrong label only hides a bug.
func DataURL(img Image) (string, error) {
	if len(img.Data) == 0 {
		return "", errors.New("image has no data: pass the encoded JPEG or PNG bytes")
	}
	sniffed := http.DetectContentType(img.Data)
	if !imageMIMEs[sniffed] {
		return "", fmt.Errorf("image data is %s, not JPEG, PNG, WebP or GIF: encode the screenshot first", sniffed)
	}
	mime := strings.ToLower(strings.TrimSpace(img.MIME))
	if mime == "image/jpg" {
		mime = "image/jpeg"
	}
	if mime != "" && mime != sniffed {
		return "", fmt.Errorf("image is labelled %s but its bytes are %s: fix the MIME or leave it empty", img.MIME, sniffed)
	}
	return "data:" + sniffed + ";base64," + base64.StdEncoding.EncodeToString(img.Data), nil
}

// ParseDataURL decodes a base64 data: URL made by DataURL (or a server's equivalent).
func ParseDataURL(s string) (Image, error) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return Image{}, errors.New("not a data: URL")
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return Image{}, errors.New("data: URL has no comma before its data")
	}
	mime, ok := strings.CutSuffix(meta, ";base64")
	if !ok {
		return Image{}, fmt.Errorf("data: URL %q is not base64", meta)
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return Image{}, fmt.Errorf("data: URL payload: %w", err)
	}
	return Image{MIME: mime, Data: data}, nil
}
