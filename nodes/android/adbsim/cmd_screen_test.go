package adbsim

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"testing"

	"github.com/corral-farm/corral/nodes/sim"
)

// decodePNG decodes what `screencap -p` wrote, failing the test if it is no PNG.
func decodePNG(t *testing.T, what, data string) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader([]byte(data)))
	if err != nil {
		t.Fatalf("%s: %d bytes that are no PNG: %v", what, len(data), err)
	}
	return img
}

// `screencap -p` encodes the screen anew every time, as a phone does, with Go's PNG encoder at
// its default compression (what a phone's encoder costs at least): the same bytes for the same
// screen, other bytes once the screen changed, a valid PNG each time, and exactly what that
// encoder makes of the raw framebuffer.
func TestScreencapPNGIsEncodedAfresh(t *testing.T) {
	d := newDevice(t, WithPhoneOptions(sim.WithSize(540, 1200))) // small: PNG under -race is slow
	home := sh(t, d, "screencap -p")
	decodePNG(t, "home", home)
	if again := sh(t, d, "screencap -p"); again != home {
		t.Error("the same screen gave other bytes")
	}
	sh(t, d, "monkey -p com.corral.notes -c android.intent.category.LAUNCHER 1")
	notes := sh(t, d, "screencap -p")
	decodePNG(t, "notes", notes)
	if notes == home {
		t.Fatal("the screen changed, the PNG did not")
	}

	raw := []byte(sh(t, d, "screencap"))
	w, h := int(binary.LittleEndian.Uint32(raw)), int(binary.LittleEndian.Uint32(raw[4:]))
	frame := &image.RGBA{Pix: raw[16:], Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	var want bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&want, frame); err != nil {
		t.Fatal(err)
	}
	if want.String() != notes {
		t.Errorf("screencap -p gave %d bytes, the default PNG encoder %d of the same framebuffer", len(notes), want.Len())
	}
}

// The raw framebuffer's header has a colour space from Android 8 (SDK 26) on, not before.
func TestScreencapRawHeader(t *testing.T) {
	for _, tc := range []struct {
		release string
		sdk     int
		header  int
	}{{"14", 34, 16}, {"8.0", 26, 16}, {"7.1.2", 25, 12}} {
		d := newDevice(t, WithAndroid(tc.release, tc.sdk), WithPhoneOptions(sim.WithSize(320, 480)))
		raw := []byte(sh(t, d, "screencap"))
		hdr := []uint32{binary.LittleEndian.Uint32(raw), binary.LittleEndian.Uint32(raw[4:]), binary.LittleEndian.Uint32(raw[8:])}
		if hdr[0] != 320 || hdr[1] != 480 || hdr[2] != 1 || len(raw) != tc.header+320*480*4 {
			t.Errorf("SDK %d: header %v, %d bytes; want 320×480 RGBA after %d bytes", tc.sdk, hdr, len(raw), tc.header)
		}
	}
}
