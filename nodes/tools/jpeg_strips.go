package tools

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"sync"
)

// JPEG markers the strip encoder reads and writes.
const (
	markerSOF0 = 0xc0
	markerDRI  = 0xdd
	markerSOS  = 0xda
	markerEOI  = 0xd9
	markerRST0 = 0xd0
)

// mcuSide is the height and width of one minimum coded unit of image/jpeg's colour output
// (4:2:0 chroma subsampling).
const mcuSide = 16

// minStripRows is the fewest pixel rows worth a goroutine of their own.
const minStripRows = 256

// encodeStrips encodes img as one baseline JPEG, up to n horizontal strips of it in parallel.
// image/jpeg encodes on one core (about 40 ms per megapixel), and a phone's screenshot has
// several. Each strip is a whole number of MCU rows, encoded on its own; as image/jpeg uses
// the same tables for a given quality, the strips' entropy-coded data only need restart
// markers between them (DC prediction restarts there, as it does at the start of each strip)
// and one header whose height is the whole image's, with a restart interval of one strip.
// The result decodes to exactly the pixels of a serial encoding. It stops with ctx's cause
// once ctx is done.
func encodeStrips(ctx context.Context, img image.Image, quality, n int) ([]byte, error) {
	b := img.Bounds()
	n = min(n, b.Dy()/minStripRows)
	if _, gray := img.(*image.Gray); n < 2 || gray {
		return encodeOne(ctx, img, quality)
	}
	mcuRows := (b.Dy() + mcuSide - 1) / mcuSide
	rowsPerStrip := (mcuRows + n - 1) / n
	interval := rowsPerStrip * ((b.Dx() + mcuSide - 1) / mcuSide)
	if interval > 0xffff {
		return encodeOne(ctx, img, quality)
	}
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok {
		return encodeOne(ctx, img, quality)
	}
	strips := make([][]byte, (mcuRows+rowsPerStrip-1)/rowsPerStrip)
	errs := make([]error, len(strips))
	var wg sync.WaitGroup
	for i := range strips {
		wg.Go(func() {
			y0 := b.Min.Y + i*rowsPerStrip*mcuSide
			r := image.Rect(b.Min.X, y0, b.Max.X, min(b.Max.Y, y0+rowsPerStrip*mcuSide))
			strips[i], errs[i] = encodeOne(ctx, sub.SubImage(r), quality)
		})
	}
	wg.Wait()
	if err := workEnded(ctx); err != nil { // once, not once a strip
		return nil, fmt.Errorf("encode JPEG: %w", err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return joinStrips(strips, b.Dy(), interval)
}

// joinStrips makes one JPEG of strips encoded alone: the first strip's header with the whole
// height and a restart interval, then every strip's scan data, restart markers between them.
func joinStrips(strips [][]byte, height, interval int) ([]byte, error) {
	head, _, err := splitJPEG(strips[0])
	if err != nil {
		return nil, err
	}
	sof := bytes.Index(head, []byte{0xff, markerSOF0})
	sos := bytes.Index(head, []byte{0xff, markerSOS})
	if sof < 0 || sos < sof || sof+7 > len(head) {
		return nil, errors.New("encode JPEG: image/jpeg wrote no SOF0 or SOS header")
	}
	out := make([]byte, 0, totalLen(strips)+len(strips)*2+6)
	out = append(out, head[:sos]...)
	// SOF0: marker, length, precision, then the height.
	binary.BigEndian.PutUint16(out[sof+5:], uint16(height))
	out = append(out, 0xff, markerDRI, 0, 4, byte(interval>>8), byte(interval))
	out = append(out, head[sos:]...)
	for i, s := range strips {
		_, scan, err := splitJPEG(s)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, 0xff, byte(markerRST0+(i-1)%8))
		}
		out = append(out, scan...)
	}
	return append(out, 0xff, markerEOI), nil
}

// splitJPEG splits one of image/jpeg's outputs into its header (SOI to the end of the SOS
// header) and its entropy-coded scan data (without the EOI).
func splitJPEG(b []byte) (head, scan []byte, err error) {
	sos := bytes.Index(b, []byte{0xff, markerSOS})
	if sos < 0 || sos+4 > len(b) || !bytes.HasSuffix(b, []byte{0xff, markerEOI}) {
		return nil, nil, errors.New("encode JPEG: image/jpeg wrote no scan")
	}
	end := sos + 2 + int(binary.BigEndian.Uint16(b[sos+2:]))
	if end > len(b)-2 {
		return nil, nil, errors.New("encode JPEG: image/jpeg wrote a short SOS header")
	}
	return b[:end], b[end : len(b)-2], nil
}

func totalLen(bs [][]byte) int {
	n := 0
	for _, b := range bs {
		n += len(b)
	}
	return n
}
