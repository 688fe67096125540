package camsim

import (
	"bytes"
	"image"

	"github.com/corral-farm/corral/internal/lens"
)

// A frame is rendered again only when the screen or the conditions are not those of one of
// the last frames: lens.Render gives the same frame for the same screen and conditions, and
// takes a second or more (many with -race on a loaded machine). A stream of an unchanged
// screen that rendered every frame kept a core busy and fell seconds behind what the phone
// showed, so a rig calibrating against `corral sim arm` saw frames from before its page until
// it gave up. Two frames are kept: the phone's screen and the calibration page, which a rig
// that tries to calibrate again shows and takes away in turn.
const keptFrames = 2

// frames are the frames kept, the latest first.
type frames []*rendered

// find is the kept frame of screen under c, nil if there is none.
func (f frames) find(screen image.Image, c lens.Conditions) *image.RGBA {
	for _, r := range f {
		if r.same(screen, c) {
			return r.frame
		}
	}
	return nil
}

// keep records that screen under c rendered as frame, forgetting the oldest frame kept. Only
// an *image.RGBA screen is kept (same compares no other).
func (f *frames) keep(screen image.Image, c lens.Conditions, frame *image.RGBA) {
	s, ok := screen.(*image.RGBA)
	if !ok {
		return
	}
	r := &rendered{screen: clone(s), c: c, frame: frame}
	*f = append(frames{r}, (*f)[:min(len(*f), keptFrames-1)]...)
}

// rendered is a frame rendered and what it was rendered from.
type rendered struct {
	screen *image.RGBA // a copy: the screen func may reuse its image
	c      lens.Conditions
	frame  *image.RGBA // shared by the callers of render: read, never drawn on
}

// same says whether screen under c renders as r did.
func (r *rendered) same(screen image.Image, c lens.Conditions) bool {
	s, ok := screen.(*image.RGBA)
	if r.screen == nil || !ok || c != r.c || s.Rect != r.screen.Rect || s.Stride != r.screen.Stride {
		return false
	}
	return bytes.Equal(s.Pix, r.screen.Pix)
}

// clone is a copy of img that its caller may draw on (and that drawing on img leaves alone).
func clone(img *image.RGBA) *image.RGBA {
	return &image.RGBA{Pix: bytes.Clone(img.Pix), Stride: img.Stride, Rect: img.Rect}
}
