package tools

import (
	"fmt"
	"image"
	"runtime"

	"golang.org/x/image/draw"
)

// MaxImageBytes bounds every image a node sends: 300 KB, small enough for an agent's context
// and far under NATS' 1 MiB message limit.
const MaxImageBytes = 300_000

// jpegQualities are the qualities EncodeJPEG tries, best first.
var jpegQualities = []int{85, 70, 50}

// EncodeJPEG encodes img as JPEG of at most limit bytes: it lowers the quality first, then
// halves the size until the image fits.
func EncodeJPEG(img image.Image, limit int) ([]byte, error) {
	b, _, err := fitJPEG(img, limit, jpegQualities)
	return b, err
}

// fitJPEG is EncodeJPEG trying only qualities at full size (the better ones were tried); it
// also returns the image it encoded, img or img halved.
func fitJPEG(img image.Image, limit int, qualities []int) ([]byte, image.Image, error) {
	for range 4 {
		for _, q := range qualities {
			b, err := encodeStrips(img, q, min(runtime.GOMAXPROCS(0), 8))
			if err != nil {
				return nil, nil, err
			}
			if len(b) <= limit {
				return b, img, nil
			}
		}
		img, qualities = halve(img), jpegQualities
	}
	return nil, nil, fmt.Errorf("screenshot does not fit in %d bytes even at 1/16 size", limit)
}

// FitWidth returns img scaled down, aspect kept, to at most maxWidth pixels wide; img itself
// when it is no wider or maxWidth is 0.
func FitWidth(img image.Image, maxWidth int) image.Image {
	b := img.Bounds()
	if maxWidth <= 0 || b.Dx() <= maxWidth {
		return img
	}
	if rgba, ok := img.(*image.RGBA); ok { // raw pixels: by area in one pass, as frames are
		s := newShrinker(rgba, maxWidth, fitHeight(b, maxWidth))
		s.rows(0, s.dst.Rect.Dy())
		return s.dst
	}
	for b.Dx()/2 >= maxWidth { // halving is the cheap scale: as far as it goes
		img = halve(img)
		b = img.Bounds()
	}
	if b.Dx() <= maxWidth {
		return img
	}
	dst := image.NewRGBA(image.Rect(0, 0, maxWidth, fitHeight(b, maxWidth)))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// fitHeight is the height of b scaled to width w, aspect kept.
func fitHeight(b image.Rectangle, w int) int {
	return max(1, (b.Dy()*w+b.Dx()/2)/b.Dx())
}
