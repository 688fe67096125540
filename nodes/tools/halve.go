package tools

import (
	"context"
	"fmt"
	"image"
	"runtime"
	"sync"

	"golang.org/x/image/draw"
)

// halve returns img at half its size. An RGBA image (what devices and peek's marks give) is
// averaged 2x2 straight on its pixels, its rows shared among the cores: several times faster
// than a general scaler, which matters for every screenshot an agent's model is sent. It stops
// with ctx's cause once ctx is done.
func halve(ctx context.Context, img image.Image) (image.Image, error) {
	if err := workEnded(ctx); err != nil {
		return nil, fmt.Errorf("halve the image: %w", err)
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, max(1, b.Dx()/2), max(1, b.Dy()/2)))
	src, ok := img.(*image.RGBA)
	if !ok || b.Dx() < 2 || b.Dy() < 2 {
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		return dst, nil
	}
	h := dst.Bounds().Dy()
	workers := min(runtime.GOMAXPROCS(0), 8, h)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for y, end := h*w/workers, h*(w+1)/workers; y < end && ctx.Err() == nil; y += lookRows {
				boxRows(dst, src, y, min(y+lookRows, end))
			}
		})
	}
	wg.Wait()
	if err := workEnded(ctx); err != nil {
		return nil, fmt.Errorf("halve the image: %w", err)
	}
	return dst, nil
}

// boxRows averages the 2x2 source pixels of dst's rows y0 to y1.
func boxRows(dst, src *image.RGBA, y0, y1 int) {
	w := dst.Bounds().Dx()
	for y := y0; y < y1; y++ {
		r0 := src.Pix[(2*y)*src.Stride:]
		r1 := src.Pix[(2*y+1)*src.Stride:]
		out := dst.Pix[y*dst.Stride:]
		for x := range w {
			a, b, o := r0[8*x:8*x+8:8*x+8], r1[8*x:8*x+8:8*x+8], out[4*x:4*x+4:4*x+4]
			for c := range 4 {
				o[c] = uint8((uint32(a[c]) + uint32(a[c+4]) + uint32(b[c]) + uint32(b[c+4]) + 2) / 4)
			}
		}
	}
}
