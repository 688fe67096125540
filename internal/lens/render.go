package lens

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"math"
	"math/rand/v2"

	"github.com/corral-farm/corral/internal/geom"
)

// Render is screen as a camera sees it under c: warped in perspective onto the frame, then
// blurred, lit by the glare, grainy, and through a JPEG round trip, in that order. It is
// the same for the same screen and conditions. The screen must be c.ScreenW×c.ScreenH.
func Render(screen image.Image, c Conditions) (*image.RGBA, error) {
	return RenderContext(context.Background(), screen, c)
}

// RenderContext is Render that stops with ctx's cause once ctx is done: each stage looks at
// ctx every few rows. A phone's frame takes a second under the race detector on a loaded
// machine: one whose task gave up would hold a core to its end.
func RenderContext(ctx context.Context, screen image.Image, c Conditions) (*image.RGBA, error) {
	if err := stopped(ctx); err != nil {
		return nil, err
	}
	if err := c.Check(); err != nil {
		return nil, err
	}
	if screen == nil {
		return nil, fmt.Errorf("%w: no screen image", ErrConditions)
	}
	if b := screen.Bounds(); b.Dx() != c.ScreenW || b.Dy() != c.ScreenH {
		return nil, fmt.Errorf("%w: the conditions are for a %d×%d screen, the image is %d×%d: make them for its size (Mild(seed, %d, %d))",
			ErrConditions, c.ScreenW, c.ScreenH, b.Dx(), b.Dy(), b.Dx(), b.Dy())
	}
	toFrame, err := c.screenToFrame()
	if err != nil {
		return nil, err
	}
	// Bilinear sampling aliases when it shrinks by more than half: halve the screen first
	// (each halving averages 2×2 pixels, as a camera's pixel integrates light) and sample that.
	src := screen
	shrink := shrinkFactor(c)
	for shrink < 0.5 && src.Bounds().Dx() >= 4 && src.Bounds().Dy() >= 4 {
		half := halve(ctx, src)
		if err := stopped(ctx); err != nil {
			return nil, err
		}
		sx := float64(half.Bounds().Dx()) / float64(src.Bounds().Dx())
		sy := float64(half.Bounds().Dy()) / float64(src.Bounds().Dy())
		toFrame = toFrame.Mul(geom.Scaling(1/sx, 1/sy))
		src, shrink = half, shrink*2
	}
	toScreen, err := toFrame.Inverse()
	if err != nil {
		return nil, fmt.Errorf("%w: the quad does not invert: %w", ErrConditions, err)
	}
	bg := c.Background
	bg.A = 255
	frame, err := warpBands(ctx, src, toScreen, c.FrameW, c.FrameH, bg)
	if err != nil {
		return nil, err
	}
	// A stage leaves its rows once ctx is done (ended): what it left is never seen.
	for _, stage := range []struct {
		on  bool
		run func()
	}{
		{c.Blur >= 0.2, func() { blur(ctx, frame, c.Blur) }},
		{c.Glare > 0, func() { glare(ctx, frame, c) }},
		{c.Noise > 0, func() { noise(ctx, frame, c.Noise, c.Seed) }},
	} {
		if err := stopped(ctx); err != nil {
			return nil, err
		}
		if stage.on {
			stage.run()
		}
	}
	if err := stopped(ctx); err != nil {
		return nil, err
	}
	if c.JPEGQuality > 0 {
		if err := jpegRoundTrip(ctx, frame, c.JPEGQuality); err != nil {
			return nil, err
		}
	}
	return frame, nil
}

// shrinkFactor is how much the screen shrinks in the frame, on average over its area.
func shrinkFactor(c Conditions) float64 {
	var area float64
	for i := 0; i < 4; i++ {
		a, b := c.Quad[i], c.Quad[(i+1)%4]
		area += a.X*b.Y - b.X*a.Y
	}
	return math.Sqrt(math.Abs(area/2) / (float64(c.ScreenW) * float64(c.ScreenH)))
}

// halve is src at half its size, each pixel the mean of a 2×2 block; unfinished once ctx is
// done.
func halve(ctx context.Context, src image.Image) *image.RGBA {
	in := rgba(src)
	w, h := in.Rect.Dx()/2, in.Rect.Dy()/2
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	geom.ParallelRows(h, w, func(y0, y1 int) {
		for y := y0; y < y1 && !ended(ctx, y0, y); y++ {
			a := in.Pix[(2*y)*in.Stride:]
			b := in.Pix[(2*y+1)*in.Stride:]
			o := out.Pix[y*out.Stride:]
			for x := 0; x < w; x++ {
				for k := 0; k < 4; k++ {
					i := 8*x + k
					o[4*x+k] = uint8((uint32(a[i]) + uint32(a[i+4]) + uint32(b[i]) + uint32(b[i+4]) + 2) >> 2)
				}
			}
		}
	})
	return out
}

// rgba is img as an *image.RGBA whose top-left is (0, 0), copied only when it must be.
func rgba(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out
}

// blur is a separable gaussian blur of the colour channels of an opaque frame, in place.
// Three channels travel together in one 64-bit word, 21 bits apart, with 12-bit weights.
// Unfinished once ctx is done.
func blur(ctx context.Context, img *image.RGBA, sigma float64) {
	r := int(math.Ceil(3 * sigma))
	fk := make([]float64, 2*r+1)
	var sum float64
	for i := -r; i <= r; i++ {
		fk[i+r] = math.Exp(-float64(i*i) / (2 * sigma * sigma))
		sum += fk[i+r]
	}
	kernel := make([]uint64, 2*r+1)
	var total uint64
	for i := range fk {
		kernel[i] = uint64(math.Round(fk[i] / sum * (1 << 12)))
		total += kernel[i]
	}
	kernel[r] += 1<<12 - total // the weights sum to exactly 1
	w, h := img.Rect.Dx(), img.Rect.Dy()
	tmp := make([]uint64, w*h)
	stride := img.Stride
	// Horizontal: img → tmp (spread words).
	geom.ParallelRows(h, w, func(y0, y1 int) {
		pad := make([]uint64, w+2*r)
		for y := y0; y < y1 && !ended(ctx, y0, y); y++ {
			src := img.Pix[y*stride : y*stride+4*w]
			for x := range pad {
				xx := min(max(x-r, 0), w-1)
				pad[x] = spread(src[4*xx : 4*xx+3 : 4*xx+3])
			}
			out := tmp[y*w : (y+1)*w]
			for x := range out {
				var acc uint64
				for i, k := range kernel {
					acc += pad[x+i] * k
				}
				out[x] = narrow(acc)
			}
		}
	})
	if ctx.Err() != nil {
		return
	}
	// Vertical: tmp → img, a row of accumulators at a time (cache friendly).
	geom.ParallelRows(h, w, func(y0, y1 int) {
		acc := make([]uint64, w)
		for y := y0; y < y1 && !ended(ctx, y0, y); y++ {
			clear(acc)
			for i, k := range kernel {
				yy := min(max(y+i-r, 0), h-1)
				src := tmp[yy*w : (yy+1)*w]
				for x := range acc {
					acc[x] += src[x] * k
				}
			}
			dst := img.Pix[y*stride : y*stride+4*w]
			for x, a := range acc {
				a = narrow(a)
				p := dst[4*x : 4*x+3 : 4*x+3]
				p[0], p[1], p[2] = uint8(a), uint8(a>>21), uint8(a>>42)
			}
		}
	})
}

// spread puts R, G, B 21 bits apart in one word.
func spread(p []uint8) uint64 { return uint64(p[0]) | uint64(p[1])<<21 | uint64(p[2])<<42 }

// narrow is a sum of spread words weighted by 12-bit weights that add to 1<<12, rounded back
// to a spread word.
func narrow(acc uint64) uint64 {
	const half = 1<<11 | 1<<32 | 1<<53
	acc += half
	return acc>>12&0xff | (acc>>33&0xff)<<21 | (acc>>54&0xff)<<42
}

// glare brightens the frame in a soft ellipse around c.GlareAt: v → v + (255−v)·g, with g
// falling off as a gaussian from c.Glare at the centre. Unfinished once ctx is done.
func glare(ctx context.Context, img *image.RGBA, c Conditions) {
	lo, hi := bbox(c.Quad)
	ry := 0.18 * math.Max(hi.Y-lo.Y, 1)
	rx := 0.30 * math.Max(hi.X-lo.X, 1)
	if hi.X-lo.X > hi.Y-lo.Y { // a landscape screen: the ellipse lies along it
		rx, ry = 0.18*(hi.X-lo.X), 0.30*(hi.Y-lo.Y)
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	x0, x1 := max(int(c.GlareAt.X-3*rx), 0), min(int(c.GlareAt.X+3*rx)+1, w)
	y0, y1 := max(int(c.GlareAt.Y-3*ry), 0), min(int(c.GlareAt.Y+3*ry)+1, h)
	if x0 >= x1 || y0 >= y1 {
		return
	}
	// exp(−dx²−dy²) = exp(−dx²)·exp(−dy²): one exponential per column and per row.
	ex := make([]float64, x1-x0)
	for x := range ex {
		dx := (float64(x0+x) + 0.5 - c.GlareAt.X) / rx
		ex[x] = c.Glare * math.Exp(-dx*dx) * 256
	}
	geom.ParallelRows(y1-y0, x1-x0, func(a, b int) {
		for y := y0 + a; y < y0+b && !ended(ctx, y0+a, y); y++ {
			dy := (float64(y) + 0.5 - c.GlareAt.Y) / ry
			ey := math.Exp(-dy * dy)
			row := img.Pix[y*img.Stride:]
			for x := x0; x < x1; x++ {
				g := uint32(ex[x-x0] * ey)
				if g == 0 {
					continue
				}
				p := row[4*x : 4*x+3 : 4*x+3]
				for k := range p {
					p[k] += uint8(((255 - uint32(p[k])) * g) >> 8)
				}
			}
		}
	})
}

// noise adds gaussian noise of sigma (0–255 scale) to each colour channel, drawn from a
// table of deviates with a generator per row seeded by seed and the row: the same frame
// whatever the number of processors. Unfinished once ctx is done.
func noise(ctx context.Context, img *image.RGBA, sigma float64, seed int64) {
	const n = 1 << 12
	table := make([]int16, n)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x501e))
	for i := range table {
		table[i] = int16(max(min(math.Round(rng.NormFloat64()*sigma), 255), -255))
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	geom.ParallelRows(h, w, func(y0, y1 int) {
		for y := y0; y < y1 && !ended(ctx, y0, y); y++ {
			// xorshift64 seeded per row (never zero).
			s := uint64(seed)*0x9e3779b97f4a7c15 ^ uint64(y+1)*0xbf58476d1ce4e5b9
			if s == 0 {
				s = 1
			}
			row := img.Pix[y*img.Stride : y*img.Stride+4*w]
			for x := 0; x < w; x++ {
				s ^= s << 13
				s ^= s >> 7
				s ^= s << 17
				p := row[4*x : 4*x+3 : 4*x+3]
				p[0] = clamp(int32(p[0]) + int32(table[s&(n-1)]))
				p[1] = clamp(int32(p[1]) + int32(table[(s>>16)&(n-1)]))
				p[2] = clamp(int32(p[2]) + int32(table[(s>>32)&(n-1)]))
			}
		}
	})
}

func clamp(v int32) uint8 { return uint8(min(max(v, 0), 255)) }
