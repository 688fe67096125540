package corpus

import (
	"image"
	"math"

	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/internal/lens"
)

// CameraConditions are the screens as a camera sees them, through package lens: each of a good
// rig's effects alone (lens.Mild, one effect kept), then all of them together, the frame
// rectified to the screen as the arm does (its screenshot is the rectified frame) and raw.
//
//   - perspective: the screen turned and off-axis in a 1080×1920 frame, at 60-75 % of its size;
//   - blur, noise, glare, jpeg: that effect alone on the screenshot;
//   - camera-mild: all of them, the frame warped back to the screen's size (the main camera
//     row);
//   - camera-mild-raw: all of them, the frame as the camera took it.
//
// A frame's truth is the screen's, mapped: a box becomes the bounding box of its corners in
// the frame. Screens are light, one in three dark, in the clean fonts and sizes.
func CameraConditions() []Condition {
	spec := func(seed uint64) Spec { return screenshot(seed, seed%3 == 2) }
	effect := func(e lens.Effect) func(*Screen, uint64) (*Screen, error) {
		return func(s *Screen, seed uint64) (*Screen, error) {
			b := s.Image.Bounds()
			return see(s, lens.Mild(int64(seed), b.Dx(), b.Dy()).Only(e), false)
		}
	}
	mild := func(rectify bool) func(*Screen, uint64) (*Screen, error) {
		return func(s *Screen, seed uint64) (*Screen, error) {
			b := s.Image.Bounds()
			return see(s, lens.Mild(int64(seed), b.Dx(), b.Dy()), rectify)
		}
	}
	return []Condition{
		{Name: "perspective", Camera: true, spec: spec, see: effect(lens.EffectPerspective)},
		{Name: "blur", Camera: true, spec: spec, see: effect(lens.EffectBlur)},
		{Name: "noise", Camera: true, spec: spec, see: effect(lens.EffectNoise)},
		{Name: "glare", Camera: true, spec: spec, see: effect(lens.EffectGlare)},
		{Name: "jpeg", Camera: true, spec: spec, see: effect(lens.EffectJPEG)},
		{Name: "camera-mild", Camera: true, spec: spec, see: mild(true)},
		{Name: "camera-mild-raw", Camera: true, spec: spec, see: mild(false)},
	}
}

// see renders s as the camera c sees it; rectify warps the frame back to the screen's size
// (the truth stays the screen's), else the truth is mapped into the frame.
func see(s *Screen, c lens.Conditions, rectify bool) (*Screen, error) {
	frame, err := lens.Render(s.Image, c)
	if err != nil {
		return nil, err
	}
	toFrame := c.ScreenToFrame()
	out := &Screen{Name: s.Name, Lang: s.Lang}
	if rectify {
		b := s.Image.Bounds()
		out.Image = geom.Warp(frame, toFrame, b.Dx(), b.Dy())
		out.Words, out.Elements, out.Icons = s.Words, s.Elements, s.Icons
		return out, nil
	}
	out.Image = frame
	fb := frame.Bounds()
	for _, w := range s.Words {
		if r := mapRect(toFrame, w.Box).Intersect(fb); !r.Empty() {
			out.Words = append(out.Words, Word{Text: w.Text, Box: r})
		}
	}
	for _, e := range s.Elements {
		if r := mapRect(toFrame, e.Box).Intersect(fb); !r.Empty() {
			out.Elements = append(out.Elements, Element{Text: e.Text, Box: r})
		}
	}
	for _, ic := range s.Icons {
		if r := mapRect(toFrame, ic.Box).Intersect(fb); !r.Empty() {
			out.Icons = append(out.Icons, Icon{Box: r})
		}
	}
	return out, nil
}

// mapRect is the bounding box of r's corners mapped by h.
func mapRect(h geom.Homography, r image.Rectangle) image.Rectangle {
	lo := geom.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi := geom.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range []image.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}} {
		q := h.Apply(geom.Point{X: float64(p.X), Y: float64(p.Y)})
		lo.X, lo.Y = math.Min(lo.X, q.X), math.Min(lo.Y, q.Y)
		hi.X, hi.Y = math.Max(hi.X, q.X), math.Max(hi.Y, q.Y)
	}
	if !lo.Finite() || !hi.Finite() {
		return image.Rectangle{}
	}
	return image.Rect(int(math.Floor(lo.X)), int(math.Floor(lo.Y)), int(math.Ceil(hi.X)), int(math.Ceil(hi.Y)))
}
