package sim

import (
	"image"
	"reflect"
	"slices"
	"sync"
	"time"
)

// A screen is drawn again only when what it shows changed. Drawing 1080x2400 takes ~5 ms (over
// a second of CPU with -race on a loaded machine), and the console looks at every watched
// phone twice a second, mostly at a screen that did not change: `corral up --sim` with a
// console open spent ~1.4 cores drawing the same pixels. What is drawn is a function of the
// phone's state (its size and serial never change), so the state drawn last is kept with its
// pixels and compared with the state now: any change, wherever it is made (a tap, a toast,
// a test's ShowPopup), draws again, and no version has to be bumped at every place that
// changes the state. Pixels unused for keepDrawn are let go: an idle phone holds none.

// keepDrawn is how long the last screen's pixels are kept unused.
const keepDrawn = 30 * time.Second

// shown returns what s draws, to keep and compare: a copy of the state but its back stack (no
// page shows it). Every other field counts, so one added to the state later counts too.
func (s *state) shown() state {
	c := *s
	c.back = nil
	if s.popup != nil {
		d := *s.popup
		d.buttons = slices.Clone(d.buttons)
		c.popup = &d
	}
	return c
}

// drawnScreen is the last screen drawn and what it showed.
type drawnScreen struct {
	mu   sync.Mutex
	what state       // shown
	img  *image.RGBA // shared: read, never drawn on
	drop *time.Timer
}

// find returns the pixels of what, if they are the ones kept.
func (d *drawnScreen) find(what state) *image.RGBA {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.img == nil || !reflect.DeepEqual(d.what, what) {
		return nil
	}
	d.drop.Reset(keepDrawn)
	return d.img
}

// keep records img as the pixels of what, for keepDrawn unless used again.
func (d *drawnScreen) keep(what state, img *image.RGBA) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.what, d.img = what, img
	if d.drop == nil {
		d.drop = time.AfterFunc(keepDrawn, d.forget)
		return
	}
	d.drop.Reset(keepDrawn)
}

// forget lets the pixels go.
func (d *drawnScreen) forget() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.img = nil
}

// clone is a copy of img that its caller may draw on.
func clone(img *image.RGBA) *image.RGBA {
	return &image.RGBA{Pix: slices.Clone(img.Pix), Stride: img.Stride, Rect: img.Rect}
}
