package lens

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"

	"github.com/corral-farm/corral/internal/geom"
)

// Limits on sizes, so that bad conditions are an error rather than an enormous allocation.
const (
	// MaxSide is the largest width or height of a screen or a frame, in pixels.
	MaxSide = 10000
	// MaxPixels is the largest area of a screen or a frame, in pixels (an 8K frame is 33 M).
	MaxPixels = 40_000_000
)

// ErrConditions says that conditions (or the screen given with them) cannot be rendered.
var ErrConditions = errors.New("lens: bad camera conditions")

// Conditions are how a camera sees a screen.
type Conditions struct {
	// ScreenW and ScreenH are the size of the screen in pixels; Render wants a screen image
	// of that size.
	ScreenW, ScreenH int
	// Quad is where the screen's corners land in the frame: top-left (0, 0), top-right
	// (ScreenW, 0), bottom-right (ScreenW, ScreenH), bottom-left (0, ScreenH), in frame
	// pixels (continuous coordinates: pixel (i, j) covers [i, i+1) × [j, j+1)).
	Quad [4]geom.Point
	// FrameW and FrameH are the size of the camera's frame in pixels.
	FrameW, FrameH int
	// Blur is the sigma of a gaussian blur in frame pixels (focus, motion); 0 is sharp.
	Blur float64
	// Noise is the sigma of gaussian sensor noise, per channel, on the 0–255 scale.
	Noise float64
	// Glare is the strength (0–1) of a soft bright ellipse, a reflection of a lamp.
	Glare float64
	// GlareAt is the centre of the glare in frame pixels.
	GlareAt geom.Point
	// JPEGQuality is the quality (1–100) of a JPEG round trip; 0 is none.
	JPEGQuality int
	// Background is what the frame shows around the screen (the phone's body, the mat under
	// it); it is opaque whatever its alpha.
	Background color.RGBA
	// Seed draws the noise: a seed renders the same frame every time.
	Seed int64
}

// Effect is one of the things Conditions do to a screen.
type Effect int

// The effects, in the order Render applies them.
const (
	EffectPerspective Effect = iota + 1
	EffectBlur
	EffectGlare
	EffectNoise
	EffectJPEG
)

// Effects lists every effect.
func Effects() []Effect {
	return []Effect{EffectPerspective, EffectBlur, EffectGlare, EffectNoise, EffectJPEG}
}

func (e Effect) String() string {
	switch e {
	case EffectPerspective:
		return "perspective"
	case EffectBlur:
		return "blur"
	case EffectGlare:
		return "glare"
	case EffectNoise:
		return "noise"
	case EffectJPEG:
		return "jpeg"
	}
	return fmt.Sprintf("effect(%d)", int(e))
}

// screenCorners are the corners of a w×h screen: TL, TR, BR, BL.
func screenCorners(w, h int) []geom.Point {
	fw, fh := float64(w), float64(h)
	return []geom.Point{{X: 0, Y: 0}, {X: fw, Y: 0}, {X: fw, Y: fh}, {X: 0, Y: fh}}
}

// ScreenToFrame maps a screen pixel to where it lands in the frame: the ground truth of a
// rendering. Conditions that fail Check give the zero Homography.
func (c Conditions) ScreenToFrame() geom.Homography {
	h, err := c.screenToFrame()
	if err != nil {
		return geom.Homography{}
	}
	return h
}

func (c Conditions) screenToFrame() (geom.Homography, error) {
	h, err := geom.FindHomography(screenCorners(c.ScreenW, c.ScreenH), c.Quad[:])
	if err != nil {
		return geom.Homography{}, fmt.Errorf("%w: the quad %v is not a view of a screen: %w", ErrConditions, c.Quad, err)
	}
	return h, nil
}

// Plain are conditions that change nothing: the frame is the screen.
func Plain(screenW, screenH int) Conditions {
	q := screenCorners(screenW, screenH)
	return Conditions{ScreenW: screenW, ScreenH: screenH, FrameW: screenW, FrameH: screenH,
		Quad: [4]geom.Point{q[0], q[1], q[2], q[3]}, Background: color.RGBA{A: 255}}
}

// Only keeps one effect of c. For an effect other than perspective the frame becomes the
// screen itself (so its ground truth is the identity) and the glare moves with it.
func (c Conditions) Only(e Effect) Conditions {
	o := Plain(c.ScreenW, c.ScreenH)
	o.Background, o.Seed = c.Background, c.Seed
	switch e {
	case EffectPerspective:
		o.Quad, o.FrameW, o.FrameH = c.Quad, c.FrameW, c.FrameH
	case EffectBlur:
		o.Blur = c.Blur
	case EffectNoise:
		o.Noise = c.Noise
	case EffectJPEG:
		o.JPEGQuality = c.JPEGQuality
	case EffectGlare:
		o.Glare, o.GlareAt = c.Glare, geom.Point{X: float64(c.ScreenW) / 2, Y: float64(c.ScreenH) / 2}
		if h, err := c.screenToFrame(); err == nil {
			if inv, err := h.Inverse(); err == nil {
				if p := inv.Apply(c.GlareAt); p.Finite() {
					o.GlareAt = p
				}
			}
		}
	}
	return o
}

// Scaled is c seen by a camera of k times the resolution: the frame, the quad, the blur and
// the glare's centre scale by k; the screen stays as it is.
func (c Conditions) Scaled(k float64) Conditions {
	c.FrameW, c.FrameH = int(math.Round(float64(c.FrameW)*k)), int(math.Round(float64(c.FrameH)*k))
	for i := range c.Quad {
		c.Quad[i] = c.Quad[i].Scale(k)
	}
	c.GlareAt = c.GlareAt.Scale(k)
	c.Blur *= k
	return c
}

// Check says whether c can be rendered: sizes positive and bounded, a quad that is a convex
// view of the screen, effects in range.
func (c Conditions) Check() error {
	for _, s := range []struct {
		what string
		w, h int
	}{{"screen", c.ScreenW, c.ScreenH}, {"frame", c.FrameW, c.FrameH}} {
		if s.w <= 0 || s.h <= 0 {
			return fmt.Errorf("%w: the %s is %d×%d: both sides must be positive", ErrConditions, s.what, s.w, s.h)
		}
		if s.w > MaxSide || s.h > MaxSide || s.w*s.h > MaxPixels {
			return fmt.Errorf("%w: the %s is %d×%d: at most %d px a side and %d px in all", ErrConditions, s.what, s.w, s.h, MaxSide, MaxPixels)
		}
	}
	for i, p := range c.Quad {
		if !p.Finite() {
			return fmt.Errorf("%w: quad corner %d is %v", ErrConditions, i, p)
		}
	}
	// Convex, in the order TL, TR, BR, BL (clockwise on screen, where y grows down).
	for i := 0; i < 4; i++ {
		a, b, d := c.Quad[i], c.Quad[(i+1)%4], c.Quad[(i+2)%4]
		e1, e2 := b.Sub(a), d.Sub(b)
		if cross := e1.X*e2.Y - e1.Y*e2.X; !(cross > 0) {
			return fmt.Errorf("%w: the quad %v is not convex in the order top-left, top-right, bottom-right, bottom-left", ErrConditions, c.Quad)
		}
	}
	if _, err := c.screenToFrame(); err != nil {
		return err
	}
	for _, r := range []struct {
		what    string
		v, hi   float64
		meaning string
	}{{"Blur", c.Blur, 50, "a gaussian sigma in pixels"}, {"Noise", c.Noise, 255, "a sigma on the 0–255 scale"}, {"Glare", c.Glare, 1, "a strength"}} {
		if !(r.v >= 0 && r.v <= r.hi) {
			return fmt.Errorf("%w: %s is %g: it is %s, from 0 to %g", ErrConditions, r.what, r.v, r.meaning, r.hi)
		}
	}
	if !c.GlareAt.Finite() {
		return fmt.Errorf("%w: GlareAt is %v", ErrConditions, c.GlareAt)
	}
	if c.JPEGQuality < 0 || c.JPEGQuality > 100 {
		return fmt.Errorf("%w: JPEGQuality is %d: 1–100, or 0 for no JPEG round trip", ErrConditions, c.JPEGQuality)
	}
	return nil
}

// preset are the ranges a preset draws conditions from.
type preset struct {
	fill        [2]float64 // of the frame's limiting side
	tilt        float64    // rotation, ± degrees
	keystone    float64    // corner jitter, ± fraction of the screen's size in the frame
	blur, noise [2]float64
	glare       [2]float64
	jpeg        int
	background  color.RGBA
}

// Mild are the conditions of a good rig: the screen fills 70–85% of a 1080×1920 frame (turned
// with the screen), turned by up to ±3° and slightly off-axis, a blur of 0.4–1 px, light
// noise (sigma 1.5–3.5), a weak glare (0.05–0.15), JPEG quality 85, on a dark mat.
func Mild(seed int64, screenW, screenH int) Conditions {
	return preset{
		fill: [2]float64{0.70, 0.85}, tilt: 3, keystone: 0.015,
		blur: [2]float64{0.4, 1.0}, noise: [2]float64{1.5, 3.5}, glare: [2]float64{0.05, 0.15},
		jpeg: 85, background: color.RGBA{24, 24, 28, 255},
	}.draw(seed, screenW, screenH)
}

// Harsh are the conditions of a poor rig: the screen fills 55–75% of the frame, turned by up
// to ±8° and clearly off-axis, a blur of 1.5–2.5 px, strong noise (sigma 6–10), a strong
// glare (0.3–0.5), JPEG quality 60, on a grey mat.
func Harsh(seed int64, screenW, screenH int) Conditions {
	return preset{
		fill: [2]float64{0.55, 0.75}, tilt: 8, keystone: 0.04,
		blur: [2]float64{1.5, 2.5}, noise: [2]float64{6, 10}, glare: [2]float64{0.3, 0.5},
		jpeg: 60, background: color.RGBA{70, 70, 76, 255},
	}.draw(seed, screenW, screenH)
}

func (p preset) draw(seed int64, screenW, screenH int) Conditions {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x1e25))
	between := func(r [2]float64) float64 { return r[0] + rng.Float64()*(r[1]-r[0]) }
	c := Conditions{ScreenW: screenW, ScreenH: screenH, FrameW: 1080, FrameH: 1920, Background: p.background, Seed: seed}
	if screenW > screenH {
		c.FrameW, c.FrameH = 1920, 1080
	}
	sw, sh := float64(max(screenW, 1)), float64(max(screenH, 1))
	fw, fh := float64(c.FrameW), float64(c.FrameH)
	scale := between(p.fill) * math.Min(fw/sw, fh/sh)
	angle := (rng.Float64()*2 - 1) * p.tilt * math.Pi / 180
	var jitter [4]geom.Point
	for i := range jitter {
		jitter[i] = geom.Point{X: (rng.Float64()*2 - 1) * p.keystone * sw, Y: (rng.Float64()*2 - 1) * p.keystone * sh}
	}
	cos, sin := math.Cos(angle), math.Sin(angle)
	place := func(scale float64, centre geom.Point) [4]geom.Point {
		var q [4]geom.Point
		for i, k := range screenCorners(screenW, screenH) {
			x, y := k.X-sw/2+jitter[i].X, k.Y-sh/2+jitter[i].Y
			q[i] = geom.Point{X: centre.X + scale*(cos*x-sin*y), Y: centre.Y + scale*(sin*x+cos*y)}
		}
		return q
	}
	// Shrink until the turned screen fits with a 2% margin, then move it off centre by up to
	// half the room left.
	var lo, hi geom.Point
	for {
		lo, hi = bbox(place(scale, geom.Point{}))
		if hi.X-lo.X <= 0.96*fw && hi.Y-lo.Y <= 0.96*fh || scale < 1e-6 {
			break
		}
		scale *= 0.98
	}
	roomX, roomY := (0.96*fw-(hi.X-lo.X))/2, (0.96*fh-(hi.Y-lo.Y))/2
	centre := geom.Point{
		X: fw/2 - (lo.X+hi.X)/2 + (rng.Float64()*2-1)*roomX/2,
		Y: fh/2 - (lo.Y+hi.Y)/2 + (rng.Float64()*2-1)*roomY/2,
	}
	c.Quad = place(scale, centre)
	c.Blur = between(p.blur)
	c.Noise = between(p.noise)
	c.Glare = between(p.glare)
	qlo, qhi := bbox(c.Quad)
	c.GlareAt = geom.Point{X: qlo.X + rng.Float64()*(qhi.X-qlo.X), Y: qlo.Y + rng.Float64()*(qhi.Y-qlo.Y)}
	c.JPEGQuality = p.jpeg
	return c
}

func bbox(q [4]geom.Point) (lo, hi geom.Point) {
	lo, hi = q[0], q[0]
	for _, p := range q[1:] {
		lo.X, lo.Y = math.Min(lo.X, p.X), math.Min(lo.Y, p.Y)
		hi.X, hi.Y = math.Max(hi.X, p.X), math.Max(hi.Y, p.Y)
	}
	return lo, hi
}
