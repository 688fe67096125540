package geom

import (
	"encoding/binary"
	"image"
	"image/color"
	"image/draw"
	"runtime"
	"sync"
)

// Warp resamples src through a perspective map: the pixel of the result centred at p takes
// src's colour at dstToSrc(p), interpolated bilinearly. src's top-left corner is (0, 0)
// whatever its Bounds().Min. What falls outside src is transparent, with an anti-aliased
// edge. A size that is not positive gives an empty image.
func Warp(src image.Image, dstToSrc Homography, w, h int) *image.RGBA {
	return WarpFill(src, dstToSrc, w, h, color.RGBA{})
}

// WarpFill is Warp with what falls outside src (and src's own transparency) composited over
// bg.
func WarpFill(src image.Image, dstToSrc Homography, w, h int, bg color.RGBA) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, max(w, 0), max(h, 0)))
	WarpInto(dst, src, dstToSrc, bg)
	return dst
}

// WarpInto is WarpFill into an image the caller owns, reused across frames; dst's top-left
// corner is (0, 0) whatever its Bounds().Min.
func WarpInto(dst *image.RGBA, src image.Image, dstToSrc Homography, bg color.RGBA) {
	b := dst.Bounds()
	if b.Empty() {
		return
	}
	s := rgbaView(src)
	// The sign of w at the centre of dst: points on the other side of the horizon line of
	// dstToSrc are behind the camera, not on src.
	centre := dstToSrc[6]*float64(b.Dx())/2 + dstToSrc[7]*float64(b.Dy())/2 + dstToSrc[8]
	job := warpJob{dst: dst, src: s, h: dstToSrc, bg: bg, positive: centre >= 0}
	ParallelRows(b.Dy(), b.Dx(), job.rows)
}

// ParallelRows runs fn over bands of rows [y0, y1) of an h×w image on all processors when the
// image is big enough for that to pay (package lens renders with it too).
func ParallelRows(h, w int, fn func(y0, y1 int)) {
	n := runtime.GOMAXPROCS(0)
	if n < 2 || w*h < 1<<16 {
		fn(0, h)
		return
	}
	n = min(n*2, h)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		y0, y1 := h*i/n, h*(i+1)/n
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(y0, y1)
		}()
	}
	wg.Wait()
}

// rgbaView is src as premultiplied RGBA bytes, without a copy when it already is (or is
// opaque NRGBA, the same bytes).
func rgbaView(src image.Image) *image.RGBA {
	b := src.Bounds()
	switch s := src.(type) {
	case *image.RGBA:
		return s
	case *image.NRGBA:
		if s.Opaque() {
			return &image.RGBA{Pix: s.Pix, Stride: s.Stride, Rect: s.Rect}
		}
	}
	// draw has fast paths for YCbCr, NRGBA, Gray...: one pass, no per-pixel interface call.
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, src, b.Min, draw.Src)
	return out
}

type warpJob struct {
	dst      *image.RGBA
	src      *image.RGBA
	h        Homography
	bg       color.RGBA
	positive bool
}

func (j warpJob) rows(y0, y1 int) {
	db := j.dst.Bounds()
	sb := j.src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	spix, sstride := j.src.Pix[j.src.PixOffset(sb.Min.X, sb.Min.Y):], j.src.Stride
	h := j.h
	bg := [4]uint32{uint32(j.bg.R), uint32(j.bg.G), uint32(j.bg.B), uint32(j.bg.A)}
	fuw, fuh := float64(sw), float64(sh)
	bgPix := uint32(j.bg.R) | uint32(j.bg.G)<<8 | uint32(j.bg.B)<<16 | uint32(j.bg.A)<<24
	for y := y0; y < y1; y++ {
		row := j.dst.Pix[j.dst.PixOffset(db.Min.X, db.Min.Y+y):]
		fy := float64(y) + 0.5
		X := h[0]*0.5 + h[1]*fy + h[2]
		Y := h[3]*0.5 + h[4]*fy + h[5]
		W := h[6]*0.5 + h[7]*fy + h[8]
		for x := 0; x < db.Dx(); x, X, Y, W = x+1, X+h[0], Y+h[3], W+h[6] {
			o := row[4*x : 4*x+4 : 4*x+4]
			if (W > 0) != j.positive || W == 0 {
				binary.LittleEndian.PutUint32(o, bgPix)
				continue
			}
			inv := 1 / W
			u, v := X*inv-0.5, Y*inv-0.5
			// !(a > b) rather than a <= b: NaN is outside too.
			if !(u > -1) || !(v > -1) || !(u < fuw) || !(v < fuh) {
				binary.LittleEndian.PutUint32(o, bgPix)
				continue
			}
			x0, y0 := int(u+1)-1, int(v+1)-1 // floor, for u, v > -1
			fx := uint32((u-float64(x0))*256 + 0.5)
			fy := uint32((v-float64(y0))*256 + 0.5)
			var p00, p10, p01, p11 uint32
			if x0 >= 0 && y0 >= 0 && x0+1 < sw && y0+1 < sh {
				i := y0*sstride + 4*x0
				p00, p10 = binary.LittleEndian.Uint32(spix[i:]), binary.LittleEndian.Uint32(spix[i+4:])
				i += sstride
				p01, p11 = binary.LittleEndian.Uint32(spix[i:]), binary.LittleEndian.Uint32(spix[i+4:])
			} else {
				p00 = tap(spix, sstride, sw, sh, x0, y0)
				p10 = tap(spix, sstride, sw, sh, x0+1, y0)
				p01 = tap(spix, sstride, sw, sh, x0, y0+1)
				p11 = tap(spix, sstride, sw, sh, x0+1, y0+1)
			}
			c := lerp(lerp(p00, p10, fx), lerp(p01, p11, fx), fy)
			if c < 0xff000000 && bg[3] != 0 {
				c = over(c, bg)
			}
			binary.LittleEndian.PutUint32(o, c)
		}
	}
}

// lerp blends the pixels p and q (R, G, B, A in one little-endian word) as p·(256−f)/256 + q·f/256,
// two channels at a time in 16-bit lanes.
func lerp(p, q, f uint32) uint32 {
	const m = 0x00ff00ff
	g := 256 - f
	rb := ((p&m)*g + (q&m)*f + 0x00800080) >> 8 & m
	ga := ((p>>8&m)*g + (q>>8&m)*f + 0x00800080) >> 8 & m
	return rb | ga<<8
}

// over composites a premultiplied pixel over the background colour bg.
func over(c uint32, bg [4]uint32) uint32 {
	k := 255 - c>>24
	var out uint32
	for i := 0; i < 4; i++ {
		v := c>>(8*i)&0xff + (bg[i]*k+127)/255
		out |= min(v, 255) << (8 * i)
	}
	return out
}

// tap is the pixel at (x, y) of src, transparent outside it.
func tap(pix []uint8, stride, w, h, x, y int) uint32 {
	if x < 0 || y < 0 || x >= w || y >= h {
		return 0
	}
	return binary.LittleEndian.Uint32(pix[y*stride+4*x:])
}
