package model_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent/model"
)

func TestDataURL(t *testing.T) {
	p := pngBytes(t)
	for _, mime := range []string{"", "image/png", "IMAGE/PNG "} {
		u, err := model.DataURL(model.Image{MIME: mime, Data: p})
		if err != nil {
			t.Fatalf("MIME %q: %v", mime, err)
		}
		if !strings.HasPrefix(u, "data:image/png;base64,iVBORw0KGgo") {
			t.Errorf("MIME %q: %.40s", mime, u)
		}
	}
	j := jpegBytes(t)
	if u, err := model.DataURL(model.Image{MIME: "image/jpg", Data: j}); err != nil || !strings.HasPrefix(u, "data:image/jpeg;base64,/9j/") {
		t.Errorf("image/jpg: %.40s %v", u, err)
	}
	for _, bad := range []model.Image{{}, {Data: []byte("<html>")}, {MIME: "image/png", Data: j}} {
		if _, err := model.DataURL(bad); err == nil {
			t.Errorf("DataURL(%s, %q) accepted", bad.MIME, bad.Data)
		}
	}
	for _, bad := range []string{"http://x/a.png", "data:image/png;base64", "data:image/png,abc", "data:image/png;base64,!!!"} {
		if _, err := model.ParseDataURL(bad); err == nil {
			t.Errorf("ParseDataURL(%q) accepted", bad)
		}
	}
}

// FuzzDataURL checks that whatever DataURL accepts, ParseDataURL gives back unchanged, labelled
// as the bytes are.
func FuzzDataURL(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\nrest"), "")
	f.Add([]byte("\xff\xd8\xff\xe0jpeg"), "image/jpeg")
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "image/webp")
	f.Add([]byte("GIF89a"), "image/png")
	f.Add([]byte("plain text"), "")
	f.Fuzz(func(t *testing.T, data []byte, mime string) {
		u, err := model.DataURL(model.Image{MIME: mime, Data: data})
		if err != nil {
			return
		}
		img, err := model.ParseDataURL(u)
		if err != nil {
			t.Fatalf("ParseDataURL(DataURL(...)): %v", err)
		}
		if !bytes.Equal(img.Data, data) || img.MIME != http.DetectContentType(data) {
			t.Fatalf("round trip: %s %q, want %s %q", img.MIME, img.Data, http.DetectContentType(data), data)
		}
	})
}

// FuzzParseDataURL checks that no input makes ParseDataURL panic, and that what it accepts
// encodes back to the same base64.
func FuzzParseDataURL(f *testing.F) {
	f.Add("data:image/png;base64,iVBORw0KGgo=")
	f.Add("data:;base64,")
	f.Add("data:image/png;base64,,,")
	f.Fuzz(func(t *testing.T, s string) {
		img, err := model.ParseDataURL(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(s, "data:"+img.MIME+";base64,") {
			t.Fatalf("%q parsed as MIME %q", s, img.MIME)
		}
	})
}
