package android

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
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
	opaqueRGBX(raw[8:12], pix)
	return &image.RGBA{Pix: pix, Stride: 4 * int(w), Rect: image.Rect(0, 0, int(w), int(h))}, true, nil
}

// Lengths of screencap's header: Android 8 (SDK 26) added the colour space.
const (
	headerShort    = 12
	headerLong     = 16
	colourSpaceSDK = 26
)

// readFramebuffer reads a `screencap` answer from r as readAnswer does, into one buffer of the
// length its header announces, up to limit bytes and one more. When the answer is an RGBA
// frame it makes the frame that follows a header of hdr bytes, turns each row opaque as it
// arrives (see parseFramebuffer), and calls rows(frame, n), if rows is not nil, whenever rows
// 0 to n-1 are all in: they do not change after that. It returns the frame only if the
// answer's length confirms hdr; parseFramebuffer reads raw otherwise. A frame after the
// longer header is whole once its last byte is in: it returns then, without waiting for the
// stream to end (which takes a few milliseconds more through adb).
func readFramebuffer(r io.Reader, limit int64, hdr int, rows func(frame *image.RGBA, n int)) (raw []byte, frame *image.RGBA, err error) {
	r = io.LimitReader(r, limit+1)
	head := make([]byte, sizeProbe)
	if n, err := io.ReadFull(r, head); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return head[:n], nil, nil
		}
		return nil, nil, err
	}
	size := int64(framebufferSize(head))
	if size == 0 {
		rest, err := io.ReadAll(r)
		return append(head, rest...), nil, err
	}
	buf := append(make([]byte, 0, min(size, limit)+1), head...) // +1: room to see the end
	frame = frameIn(buf, hdr)
	done := 0 // rows made opaque and told
	for len(buf) < cap(buf) {
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if frame != nil && len(buf) > hdr {
			if n := min((len(buf)-hdr)/frame.Stride, frame.Rect.Dy()); n > done {
				opaqueRGBX(buf[8:12], frame.Pix[done*frame.Stride:n*frame.Stride])
				done = n
				if rows != nil {
					rows(frame, n)
				}
			}
			if hdr == headerLong && len(buf) == hdr+len(frame.Pix) {
				return buf, frame, nil
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if len(buf) == cap(buf) { // longer than announced: read it all, and let parseFramebuffer judge
		rest, err := io.ReadAll(r)
		return append(buf, rest...), nil, err
	}
	if frame == nil || len(buf) != hdr+len(frame.Pix) {
		return buf, nil, nil
	}
	return buf, frame, nil
}

// frameIn returns the RGBA frame that follows a header of hdr bytes in buf, sharing buf's
// memory up to its capacity; nil unless the header's format is RGBA and the frame fits.
func frameIn(buf []byte, hdr int) *image.RGBA {
	w, h := int(binary.LittleEndian.Uint32(buf[0:])), int(binary.LittleEndian.Uint32(buf[4:]))
	format := binary.LittleEndian.Uint32(buf[8:])
	if format != formatRGBA8888 && format != formatRGBX8888 || hdr+w*h*4 > cap(buf) {
		return nil
	}
	return &image.RGBA{Pix: buf[hdr : hdr+w*h*4], Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
}

// opaqueRGBX sets the fourth byte of every pixel of pix when format (as the header's 4 bytes)
// is RGBX: the framebuffer is opaque, RGBX leaves that byte undefined, and image/jpeg would
// read it as alpha.
func opaqueRGBX(format, pix []byte) {
	if binary.LittleEndian.Uint32(format) != formatRGBX8888 {
		return
	}
	for i := 3; i < len(pix); i += 4 {
		pix[i] = 0xff
	}
}
