package tools

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
)

// encodeOne encodes img as one baseline JPEG: an RGBA image (every screen) with encodeRGBA,
// anything else with image/jpeg (which takes no ctx: one look before it).
func encodeOne(ctx context.Context, img image.Image, quality int) ([]byte, error) {
	if rgba, ok := img.(*image.RGBA); ok && !rgba.Rect.Empty() && rgba.Rect.Dx() < 1<<16 && rgba.Rect.Dy() < 1<<16 {
		return encodeRGBA(ctx, rgba, quality)
	}
	if err := workEnded(ctx); err != nil {
		return nil, fmt.Errorf("encode JPEG: %w", err)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("encode JPEG: %w", err)
	}
	return buf.Bytes(), nil
}

// encodeRGBA encodes img as image/jpeg would (baseline, 4:2:0, its header and tables for
// quality), several times faster on screens: pixels are read straight from Pix, and a flat
// block (most of a UI is flat colour) costs neither a colour conversion per pixel nor a
// transform. Its transform is the float AAN one rather than image/jpeg's integer one, so a
// coefficient may round the other way now and then. It stops with ctx's cause once ctx is
// done, between rows of MCUs.
func encodeRGBA(ctx context.Context, img *image.RGBA, quality int) ([]byte, error) {
	t, err := tablesFor(quality)
	if err != nil {
		return nil, err
	}
	b := img.Rect
	s := scan{t: t, out: make([]byte, 0, len(t.head)+b.Dx()*b.Dy()/8)}
	s.out = append(s.out, t.head...)
	binary.BigEndian.PutUint16(s.out[t.sof+5:], uint16(b.Dy())) // SOF0: marker, length, precision, height, width
	binary.BigEndian.PutUint16(s.out[t.sof+7:], uint16(b.Dx()))
	if err := s.image(ctx, img); err != nil {
		return nil, fmt.Errorf("encode JPEG: %w", err)
	}
	s.emit(0x7f, 7) // pad the last byte with ones
	return append(s.out, 0xff, markerEOI), nil
}
