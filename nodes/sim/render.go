package sim

import (
	"context"
	"image"
	"image/color"
	"math"

	"golang.org/x/image/font"

	"github.com/corral-farm/corral/nodes/device"
)

var (
	dividerColor = rgb(0xe0e0e0)
	switchOff    = rgb(0xbdbdbd)
	hintColor    = rgb(0x9aa0a6)
)

// Screenshot returns what the phone shows now as a fresh *image.RGBA, the caller's to draw on.
// A look (device.Look: the console's frame, only scaled and encoded) gets the phone's own, not
// a 10 MB copy per frame. The screen is drawn again only when it changed (drawn.go).
func (p *Phone) Screenshot(ctx context.Context) (image.Image, error) {
	defer p.track()()
	if err := p.begin(ctx, "screenshot"); err != nil {
		return nil, err
	}
	img, err := p.screen(ctx)
	if err != nil {
		return nil, p.wrap("screenshot", err, "")
	}
	if device.IsLook(ctx) {
		return img, nil
	}
	return clone(img), nil
}

// screen is what the phone shows now, shared with the other callers: read, never drawn on.
// Drawing it stops with ctx's cause once ctx is done (nothing is kept then).
func (p *Phone) screen(ctx context.Context) (*image.RGBA, error) {
	p.mu.Lock()
	what := p.st.shown()
	if img := p.drawn.find(what); img != nil {
		p.mu.Unlock()
		return img, nil
	}
	root := p.tree()
	p.mu.Unlock()
	img, err := render(ctx, root, layout{p.size.Width, p.size.Height})
	if err != nil {
		return nil, err
	}
	p.drawn.keep(what, img)
	return img, nil
}

// painter draws one element tree into one image.
type painter struct {
	ctx   context.Context // looked at before each element: a screenshot whose task ended stops
	err   error           // ctx's cause, once the painter stopped for it
	dst   *image.RGBA
	faces faces
	l     layout
}

// render draws the tree from root, or stops with ctx's cause once ctx is done: a phone's screen
// takes tens of milliseconds, a second under the race detector on a loaded machine.
func render(ctx context.Context, root *element, l layout) (*image.RGBA, error) {
	r := painter{ctx: ctx, dst: image.NewRGBA(image.Rect(0, 0, l.w, l.h)), faces: faces{}, l: l}
	r.draw(root)
	if r.err != nil {
		return nil, r.err
	}
	return r.dst, nil
}

func (r *painter) draw(e *element) {
	if r.err != nil {
		return
	}
	if r.ctx.Err() != nil {
		r.err = context.Cause(r.ctx)
		return
	}
	s, clip := &e.style, e.bounds
	switch e.kind {
	case kWallpaper:
		r.gradient(clip, s.bg, s.fg)
	case kBox:
		r.roundRect(e.box, s.radius, s.bg, clip)
		if e.text != "" {
			r.text(e.text, e.box, clip, s.size, s.bold, s.fg, s.align)
		} else {
			r.text(e.glyph, e.box, clip, s.size, s.bold, s.fg, alignCenter)
		}
	case kIcon:
		r.icon(e)
	case kBadge:
		side := min(e.box.Dx(), e.box.Dy())
		r.roundRect(e.box, side/2, s.bg, clip)
		r.text(e.glyph, e.box, clip, s.size, s.bold, s.fg, alignCenter)
	case kField:
		r.field(e)
	case kSwitch:
		r.toggle(e)
	case kDots:
		r.dots(e)
	}
	if s.divider {
		line := image.Rect(e.box.Min.X, e.box.Max.Y-max(1, r.l.px(2)), e.box.Max.X, e.box.Max.Y)
		r.fill(line.Intersect(clip), dividerColor)
	}
	for _, c := range e.children {
		r.draw(c)
	}
}

// icon draws a launcher icon: a rounded square with the app's initial, the name below.
func (r *painter) icon(e *element) {
	l, s, box := r.l, &e.style, e.box
	side := l.px(170)
	x, y := box.Min.X+(box.Dx()-side)/2, box.Min.Y+l.px(30)
	sq := image.Rect(x, y, x+side, y+side)
	r.roundRect(sq, l.px(44), s.bg, e.bounds)
	r.text(e.glyph, sq, e.bounds, l.px(90), true, s.fg, alignCenter)
	label := image.Rect(box.Min.X, box.Min.Y+l.px(215), box.Max.X, box.Min.Y+l.px(285))
	r.text(e.text, label, e.bounds, s.size, s.bold, s.fg, alignCenter)
}

// field draws an edit text: a bordered box, the text's last lines that fit (or the hint) and a
// caret when focused.
func (r *painter) field(e *element) {
	l, s, clip := r.l, &e.style, e.bounds
	border := hintColor
	if e.focused {
		border = apps[appNotes].color
	}
	bw := max(2, l.px(4))
	r.roundRect(e.box, s.radius, border, clip)
	r.roundRect(e.box.Inset(bw), max(0, s.radius-bw), s.bg, clip)
	pad := l.px(30)
	inner := e.box.Inset(pad)
	lineH := s.size * 135 / 100
	if e.text == "" {
		r.text(e.hint, image.Rect(inner.Min.X, inner.Min.Y, inner.Max.X, inner.Min.Y+lineH), clip, s.size, false, hintColor, alignLeft)
		if e.focused {
			r.fill(image.Rect(inner.Min.X, inner.Min.Y+lineH/8, inner.Min.X+max(2, l.px(4)), inner.Min.Y+lineH*7/8).Intersect(clip), border)
		}
		return
	}
	d := r.drawer(s.size, false)
	lines := wrap(d, e.text, inner.Dx())
	if fits := max(1, inner.Dy()/lineH); len(lines) > fits {
		lines = lines[len(lines)-fits:]
	}
	y := inner.Min.Y
	for _, ln := range lines {
		r.text(ln, image.Rect(inner.Min.X, y, inner.Max.X, y+lineH), inner.Intersect(clip), s.size, false, s.fg, alignLeft)
		y += lineH
	}
	if e.focused {
		x := inner.Min.X + d.MeasureString(lines[len(lines)-1]).Ceil() + l.px(4)
		y -= lineH
		r.fill(image.Rect(x, y+lineH/8, x+max(2, l.px(4)), y+lineH*7/8).Intersect(inner).Intersect(clip), border)
	}
}

// toggle draws a switch: a pill track, and the thumb at the right when checked.
func (r *painter) toggle(e *element) {
	box, clip := e.box, e.bounds
	track := switchOff
	if e.checked {
		track = e.style.bg
	}
	r.roundRect(box, box.Dy()/2, track, clip)
	inset := box.Dy() / 8
	d := box.Dy() - 2*inset
	x := box.Min.X + inset
	if e.checked {
		x = box.Max.X - inset - d
	}
	r.roundRect(image.Rect(x, box.Min.Y+inset, x+d, box.Min.Y+inset+d), d/2, white, clip)
}

// dots draws e.n filled circles centred in the box: the digits typed so far.
func (r *painter) dots(e *element) {
	d, gap := r.l.px(36), r.l.px(64)
	cx, cy := e.box.Min.X+e.box.Dx()/2-(e.n-1)*gap/2, e.box.Min.Y+e.box.Dy()/2
	for i := 0; i < e.n; i++ {
		x := cx + i*gap
		r.roundRect(image.Rect(x-d/2, cy-d/2, x+d/2, cy+d/2), d/2, e.style.fg, e.bounds)
	}
}

// gradient fills box with a vertical gradient from top to bottom colour.
func (r *painter) gradient(box image.Rectangle, top, bottom color.RGBA) {
	box = box.Intersect(r.dst.Rect)
	h := r.dst.Rect.Dy()
	for y := box.Min.Y; y < box.Max.Y; y++ {
		t := float64(y) / float64(max(1, h-1))
		c := color.RGBA{R: lerp(top.R, bottom.R, t), G: lerp(top.G, bottom.G, t), B: lerp(top.B, bottom.B, t), A: 0xff}
		r.span(y, box.Min.X, box.Max.X, c)
	}
}

func lerp(a, b uint8, t float64) uint8 { return uint8(float64(a) + (float64(b)-float64(a))*t + 0.5) }

func (r *painter) fill(box image.Rectangle, c color.RGBA) {
	box = box.Intersect(r.dst.Rect)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		r.span(y, box.Min.X, box.Max.X, c)
	}
}

// span paints pixels [x0,x1) of row y with an opaque colour, doubling copies for speed.
func (r *painter) span(y, x0, x1 int, c color.RGBA) {
	if x1 <= x0 {
		return
	}
	if c.A != 0xff {
		for x := x0; x < x1; x++ {
			r.blend(x, y, c, 1)
		}
		return
	}
	i := r.dst.PixOffset(x0, y)
	row := r.dst.Pix[i : i+4*(x1-x0)]
	row[0], row[1], row[2], row[3] = c.R, c.G, c.B, c.A
	for n := 4; n < len(row); n *= 2 {
		copy(row[n:], row[:n])
	}
}

// blend paints c over pixel (x,y) with coverage a (0-1), scaled by c's own alpha.
func (r *painter) blend(x, y int, c color.RGBA, a float64) {
	a *= float64(c.A) / 255
	if a <= 0 {
		return
	}
	i := r.dst.PixOffset(x, y)
	p := r.dst.Pix[i : i+4 : i+4]
	p[0] = uint8(float64(c.R)*a + float64(p[0])*(1-a) + 0.5)
	p[1] = uint8(float64(c.G)*a + float64(p[1])*(1-a) + 0.5)
	p[2] = uint8(float64(c.B)*a + float64(p[2])*(1-a) + 0.5)
	p[3] = uint8(255*a + float64(p[3])*(1-a) + 0.5)
}

// roundRect fills box, clipped to clip, with corners of radius rad, anti-aliased. Per row it
// fills the fully covered span at once and works out coverage only for the edge pixels.
func (r *painter) roundRect(box image.Rectangle, rad int, c color.RGBA, clip image.Rectangle) {
	vis := box.Intersect(clip).Intersect(r.dst.Rect)
	if vis.Empty() || c.A == 0 {
		return
	}
	rad = min(rad, box.Dx()/2, box.Dy()/2)
	if rad <= 0 {
		r.fill(vis, c)
		return
	}
	fr := float64(rad)
	lcx, rcx := float64(box.Min.X+rad), float64(box.Max.X-rad) // corner centres
	for y := vis.Min.Y; y < vis.Max.Y; y++ {
		py := float64(y) + 0.5
		var dy float64
		switch {
		case y < box.Min.Y+rad:
			dy = float64(box.Min.Y+rad) - py
		case y >= box.Max.Y-rad:
			dy = py - float64(box.Max.Y-rad)
		default:
			r.span(y, vis.Min.X, vis.Max.X, c)
			continue
		}
		outer := math.Sqrt(max(0, (fr+0.75)*(fr+0.75)-dy*dy))
		ox0 := max(vis.Min.X, int(math.Floor(lcx-outer-0.5)))
		ox1 := min(vis.Max.X, int(math.Ceil(rcx+outer-0.5))+1)
		sx0, sx1 := ox1, ox1 // the solid span; empty when the row only grazes the corners
		if in := fr - 0.75; in > dy {
			inner := math.Sqrt(in*in - dy*dy)
			sx0 = clamp(int(math.Ceil(lcx-inner-0.5)), ox0, ox1)
			sx1 = clamp(int(math.Floor(rcx+inner-0.5))+1, sx0, ox1)
		}
		for x := ox0; x < sx0; x++ {
			r.blend(x, y, c, coverage(float64(x)+0.5, dy, lcx, rcx, fr))
		}
		r.span(y, sx0, sx1, c)
		for x := sx1; x < ox1; x++ {
			r.blend(x, y, c, coverage(float64(x)+0.5, dy, lcx, rcx, fr))
		}
	}
}

// coverage estimates how much of the pixel centred at px, dy from the corner centres' row, lies
// inside the rounded shape.
func coverage(px, dy, lcx, rcx, rad float64) float64 {
	cx := min(max(px, lcx), rcx)
	d := math.Hypot(px-cx, dy)
	return min(max(rad-d+0.5, 0), 1)
}

// drawer returns a font.Drawer for measuring text of one size.
func (r *painter) drawer(size int, bold bool) *font.Drawer {
	return &font.Drawer{Face: r.faces.get(size, bold)}
}
