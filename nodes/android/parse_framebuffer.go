package android

import (
	"encoding/binary"
	"fmt"
	"image"
)

// Pixel formats of `screencap` without -p (android.graphics.PixelFormat / HAL formats).
const (
	formatRGBA8888 = 1
	formatRGBX8888 = 2
)

// maxScreenSide bounds the width and height a framebuffer header may claim.
const maxScreenSide = 16384

// framebufferSize is the length of a framebuffer answer from its first 12 bytes, with the
// longer of the two headers; 0 when they are no sensible header.
func framebufferSize(head []byte) int {
	w, h := binary.LittleEndian.Uint32(head[0:]), binary.LittleEndian.Uint32(head[4:])
	if w == 0 || h == 0 || w > maxScreenSide || h > maxScreenSide {
		return 0
	}
	return 16 + int(w)*int(h)*4
}

// parseFramebuffer reads what `screencap` writes without -p: a little-endian header of width,
// height and pixel format (and, since Android 8, a colour space: 16 bytes instead of 12),
// then the pixels row by row. It returns the pixels as an RGBA image that shares raw's
// memory. ok is false for formats it does not read (the caller asks for a PNG then); err
// says what is wrong with an answer that is not a framebuffer at all.
func parseFramebuffer(raw []byte) (img *image.RGBA, ok bool, err error) {
	if len(raw) < 12 {
		return nil, false, fmt.Errorf("%w: screencap answered %d bytes, less than a framebuffer header", ErrCommandFailed, len(raw))
	}
	w := binary.LittleEndian.Uint32(raw[0:])
	h := binary.LittleEndian.Uint32(raw[4:])
	format := binary.LittleEndian.Uint32(raw[8:])
	if w == 0 || h == 0 || w > maxScreenSide || h > maxScreenSide {
		return nil, false, fmt.Errorf("%w: screencap's header claims a %d×%d screen", ErrCommandFailed, w, h)
	}
	if format != formatRGBA8888 && format != formatRGBX8888 {
		return nil, false, nil
	}
	pixels := int(w) * int(h) * 4
	header := len(raw) - pixels
	if header != 12 && header != 16 {
		return nil, false, fmt.Errorf("%w: screencap answered %d bytes for a %d×%d RGBA screen (want %d plus a 12- or 16-byte header)",
			ErrCommandFailed, len(raw), w, h, pixels)
	}
	pix := raw[header:]
	// The framebuffer is opaque; RGBX leaves the fourth byte undefined, and image/jpeg would
	// read it as alpha.
	if format == formatRGBX8888 {
		for i := 3; i < len(pix); i += 4 {
			pix[i] = 0xff
		}
	}
	return &image.RGBA{Pix: pix, Stride: 4 * int(w), Rect: image.Rect(0, 0, int(w), int(h))}, true, nil
}
