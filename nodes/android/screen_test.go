package android

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
	"time"
)

// forget drops the cached screen size, so that the next ScreenSize asks the device.
func (c *screenCache) forget() {
	c.mu.Lock()
	c.at = time.Time{}
	c.mu.Unlock()
}

func TestOpaque(t *testing.T) {
	n := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	for y := range 2 {
		for x := range 3 {
			n.SetNRGBA(x, y, color.NRGBA{R: uint8(10 * x), G: uint8(20 * y), B: 7, A: 0xff})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, n); err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := opaque(dec).(*image.RGBA)
	if !ok {
		t.Fatalf("opaque(%T) is %T, want *image.RGBA", dec, opaque(dec))
	}
	for y := range 2 {
		for x := range 3 {
			if a, b := color.RGBAModel.Convert(n.At(x, y)), got.At(x, y); a != b {
				t.Errorf("(%d,%d): %v, want %v", x, y, b, a)
			}
		}
	}
	n.SetNRGBA(1, 1, color.NRGBA{A: 0x80})
	if _, ok := opaque(n).(*image.NRGBA); !ok {
		t.Error("a translucent image was turned into RGBA")
	}
}
