package android

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"strings"
	"testing"
	"time"
)

// framebuffer builds a `screencap` answer: the header (12 bytes, or 16 with a colour space)
// and w×h pixels whose bytes count up.
func framebuffer(w, h, format uint32, colourSpace bool) []byte {
	var b bytes.Buffer
	hdr := []uint32{w, h, format}
	if colourSpace {
		hdr = append(hdr, 0)
	}
	for _, v := range hdr {
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	for i := range int(w * h * 4) {
		b.WriteByte(byte(i))
	}
	return b.Bytes()
}

func TestParseFramebuffer(t *testing.T) {
	for _, cs := range []bool{false, true} {
		img, ok, err := parseFramebuffer(framebuffer(3, 2, formatRGBA8888, cs))
		if err != nil || !ok {
			t.Fatalf("RGBA (colour space %v): %v, %v", cs, ok, err)
		}
		if img.Bounds() != image.Rect(0, 0, 3, 2) || img.Stride != 12 || img.Pix[0] != 0 || img.Pix[23] != 23 {
			t.Errorf("RGBA (colour space %v): %v stride %d pix %v", cs, img.Bounds(), img.Stride, img.Pix)
		}
	}
	img, ok, err := parseFramebuffer(framebuffer(2, 2, formatRGBX8888, true))
	if err != nil || !ok {
		t.Fatalf("RGBX: %v, %v", ok, err)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 0xff {
			t.Fatalf("RGBX: byte %d is %#x, want opaque", i, img.Pix[i])
		}
	}
	if _, ok, err := parseFramebuffer(framebuffer(2, 2, 4, true)); ok || err != nil {
		t.Errorf("RGB_565: %v, %v; want not ok and no error (the caller asks for a PNG)", ok, err)
	}
	for name, raw := range map[string][]byte{
		"short":       {1, 2, 3},
		"zero width":  framebuffer(0, 2, formatRGBA8888, true),
		"huge":        framebuffer(1, 1, formatRGBA8888, true)[:4:4],
		"truncated":   framebuffer(3, 2, formatRGBA8888, true)[:30],
		"png":         []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"),
		"claims 20k²": append(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 20000), 20000), 1, 0, 0, 0),
	} {
		if _, ok, err := parseFramebuffer(raw); ok || !errors.Is(err, ErrCommandFailed) {
			t.Errorf("%s: %v, %v; want ErrCommandFailed", name, ok, err)
		}
	}
}

// The raw framebuffer and the PNG show the same pixels.
func TestScreenshotRawMatchesPNG(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cmds := dev.Commands(); len(cmds) == 0 || cmds[len(cmds)-1] != "screencap" {
		t.Fatalf("commands %q, want the raw screencap last", cmds)
	}
	png, err := d.screenshotPNG(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, p := raw.(*image.RGBA), png.(*image.RGBA)
	if r.Bounds() != p.Bounds() || !bytes.Equal(r.Pix, p.Pix) {
		t.Errorf("raw %v and PNG %v screenshots differ", r.Bounds(), p.Bounds())
	}
}

func FuzzFramebuffer(f *testing.F) {
	f.Add(framebuffer(2, 2, formatRGBA8888, true))
	f.Add(framebuffer(2, 1, formatRGBX8888, false))
	f.Add([]byte(strings.Repeat("\x00", 16)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		img, ok, err := parseFramebuffer(raw)
		if ok && (err != nil || len(img.Pix) != img.Rect.Dx()*img.Rect.Dy()*4) {
			t.Errorf("accepted %d bytes as %v with %d pixel bytes (%v)", len(raw), img.Rect, len(img.Pix), err)
		}
	})
}
