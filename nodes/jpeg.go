package nodes

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"

	"golang.org/x/image/draw"
)

// MaxImageBytes bounds every image a node sends: 300 KB, small enough for an agent's context
// and far under NATS' 1 MiB message limit.
const MaxImageBytes = 300_000

// EncodeJPEG encodes img as JPEG of at most limit bytes: it lowers the quality first, then
// halves the size until the image fits.
func EncodeJPEG(img image.Image, limit int) ([]byte, error) {
	var buf bytes.Buffer
	for range 4 {
		for _, q := range []int{85, 70, 50} {
			buf.Reset()
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
				return nil, fmt.Errorf("encode JPEG: %w", err)
			}
			if buf.Len() <= limit {
				return buf.Bytes(), nil
			}
		}
		img = halve(img)
	}
	return nil, fmt.Errorf("screenshot does not fit in %d bytes even at 1/16 size", limit)
}

func halve(img image.Image) image.Image {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, max(1, b.Dx()/2), max(1, b.Dy()/2)))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}
