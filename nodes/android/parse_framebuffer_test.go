package android

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"io"
	"strings"
	"testing"
	"testing/iotest"
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

// readFramebuffer tells the rows of an RGBA frame as they arrive, however the bytes come,
// and returns the frame only when the answer's length confirms the header it assumed.
func TestReadFramebuffer(t *testing.T) {
	readers := map[string]func([]byte) io.Reader{
		"whole":    func(b []byte) io.Reader { return bytes.NewReader(b) },
		"bytewise": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"halves":   func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"data+EOF": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
	}
	for name, reader := range readers {
		for _, tc := range []struct {
			format uint32
			hdr    int
		}{{formatRGBA8888, headerLong}, {formatRGBA8888, headerShort}, {formatRGBX8888, headerLong}} {
			raw := framebuffer(5, 7, tc.format, tc.hdr == headerLong)
			want, _, _ := parseFramebuffer(bytes.Clone(raw))
			told := []int{}
			var frameTold *image.RGBA
			got, frame, err := readFramebuffer(reader(raw), 1<<20, tc.hdr, func(f *image.RGBA, n int) {
				if frameTold != nil && f != frameTold || len(told) > 0 && n <= told[len(told)-1] {
					t.Fatalf("%s: told frame %p rows %d after %p rows %v", name, f, n, frameTold, told)
				}
				if !bytes.Equal(f.Pix[:n*f.Stride], want.Pix[:n*f.Stride]) {
					t.Fatalf("%s: rows 0 to %d told before they were in", name, n)
				}
				frameTold, told = f, append(told, n)
			})
			if err != nil || frame == nil || frame != frameTold || told[len(told)-1] != 7 {
				t.Fatalf("%s, %d-byte header, format %d: frame %v (told %p, rows %v), %v", name, tc.hdr, tc.format, frame != nil, frameTold, told, err)
			}
			if len(got) != len(raw) || !bytes.Equal(frame.Pix, want.Pix) {
				t.Errorf("%s: %d of %d bytes, or the frame's pixels differ from parseFramebuffer's", name, len(got), len(raw))
			}
		}
	}
	for name, tc := range map[string]struct {
		raw []byte
		hdr int
	}{
		"header longer than assumed":  {framebuffer(5, 7, formatRGBA8888, true), headerShort},
		"header shorter than assumed": {framebuffer(5, 7, formatRGBA8888, false), headerLong},
		"RGB_565":                     {framebuffer(5, 7, 4, true), headerLong},
		"truncated":                   {framebuffer(5, 7, formatRGBA8888, true)[:100], headerLong},
		"longer than announced":       {append(framebuffer(5, 7, formatRGBA8888, false), 0, 0, 0, 0, 0), headerShort},
		"png":                         {[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"), headerLong},
	} {
		got, frame, err := readFramebuffer(bytes.NewReader(tc.raw), 1<<20, tc.hdr, func(*image.RGBA, int) {})
		if err != nil || frame != nil || !bytes.Equal(got, tc.raw) {
			t.Errorf("%s: frame %v, %d of %d bytes, %v; want no frame and every byte for parseFramebuffer", name, frame != nil, len(got), len(tc.raw), err)
		}
	}
	// A frame after the longer header is whole at its last byte: what may follow is not read.
	more := strings.NewReader("more")
	r := io.MultiReader(bytes.NewReader(framebuffer(5, 7, formatRGBA8888, true)), more)
	if _, frame, err := readFramebuffer(r, 1<<20, headerLong, nil); frame == nil || err != nil || more.Len() != 4 {
		t.Errorf("a whole frame: %v, %v, %d bytes left unread", frame != nil, err, more.Len())
	}
	if _, _, err := readFramebuffer(iotest.TimeoutReader(bytes.NewReader(framebuffer(5, 7, formatRGBA8888, true))), 1<<20, headerLong, nil); !errors.Is(err, iotest.ErrTimeout) {
		t.Errorf("a failed read: %v", err)
	}
}

func FuzzReadFramebuffer(f *testing.F) {
	f.Add(framebuffer(2, 2, formatRGBA8888, true), true)
	f.Add(framebuffer(2, 1, formatRGBX8888, false), false)
	f.Add([]byte(strings.Repeat("\x00", 16)), true)
	f.Fuzz(func(t *testing.T, raw []byte, long bool) {
		hdr := headerShort
		if long {
			hdr = headerLong
		}
		told := 0
		got, frame, err := readFramebuffer(bytes.NewReader(raw), 1<<16, hdr, func(f *image.RGBA, n int) {
			if n <= told || n > f.Rect.Dy() {
				t.Fatalf("told rows %d after %d of %v", n, told, f.Rect)
			}
			told = n
		})
		if err != nil {
			t.Fatal(err)
		}
		if frame != nil && (len(got) != hdr+len(frame.Pix) || told != frame.Rect.Dy() || len(frame.Pix) != 4*frame.Rect.Dx()*frame.Rect.Dy()) {
			t.Errorf("a %v frame from %d bytes, %d rows told", frame.Rect, len(got), told)
		}
	})
}
