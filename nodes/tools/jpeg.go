package tools

import (
	"context"
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
// halves the size until the image fits. It stops with ctx's cause once ctx is done (a few
// rows at a time): a task whose deadline passed leaves no encoder holding a core.
func EncodeJPEG(ctx context.Context, img image.Image, limit int) ([]byte, error) {
	b, _, err := fitJPEG(ctx, img, limit, jpegQualities)
	return b, err
}

// fitJPEG is EncodeJPEG trying only qualities at full size (the better ones were tried); it
// also returns the image it encoded, img or img halved.
func fitJPEG(ctx context.Context, img image.Image, limit int, qualities []int) ([]byte, image.Image, error) {
	for range 4 {
		for _, q := range qualities {
			b, err := encodeStrips(ctx, img, q, min(runtime.GOMAXPROCS(0), 8))
			if err != nil {
				return nil, nil, err
			}
			if len(b) <= limit {
				return b, img, nil
			}
		}
		var err error
		if img, err = halve(ctx, img); err != nil {
			return nil, nil, err
		}
		qualities = jpegQualities
	}
	return nil, nil, fmt.Errorf("screenshot does not fit in %d bytes even at 1/16 size", limit)
}

// FitWidth returns img scaled down, aspect kept, to at most maxWidth pixels wide; img itself
// when it is no wider or maxWidth is 0. It stops with ctx's cause once ctx is done.
func FitWidth(ctx context.Context, img image.Image, maxWidth int) (image.Image, error) {
	b := img.Bounds()
	if maxWidth <= 0 || b.Dx() <= maxWidth {
		return img, nil
	}
	if rgba, ok := img.(*image.RGBA); ok { // raw pixels: by area in one pass, as frames are
		s := newShrinker(rgba, maxWidth, fitHeight(b, maxWidth))
		for y, h := 0, s.dst.Rect.Dy(); y < h; y += lookRows {
			if err := workEnded(ctx); err != nil {
				return nil, fmt.Errorf("scale the image: %w", err)
			}
			s.rows(y, min(y+lookRows, h))
		}
		return s.dst, nil
	}
	for b.Dx()/2 >= maxWidth { // halving is the cheap scale: as far as it goes
		var err error
		if img, err = halve(ctx, img); err != nil {
			return nil, err
		}
		b = img.Bounds()
	}
	if b.Dx() <= maxWidth {
		return img, nil
	}
	if err := workEnded(ctx); err != nil { // the general scaler takes no ctx: one look before it
		return nil, fmt.Errorf("scale the image: %w", err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, maxWidth, fitHeight(b, maxWidth)))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst, nil
}

// fitHeight is the height of b scaled to width w, aspect kept.
func fitHeight(b image.Rectangle, w int) int {
	return max(1, (b.Dy()*w+b.Dx()/2)/b.Dx())
}
