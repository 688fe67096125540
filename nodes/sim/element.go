package sim

import (
	"image"
	"image/color"
)

// element is one node of a screen's UI tree. The same tree is drawn (render.go), hit-tested
// by taps and swipes, and dumped as XML (source.go), so all three agree to the pixel.
type element struct {
	class string // android.widget.TextView, ...
	id    string // resource-id
	text  string
	desc  string // content-desc
	pkg   string // inherited from the parent when empty

	box    image.Rectangle // where it is laid out
	bounds image.Rectangle // the visible part: box clipped by its ancestors

	clickable, scrollable, checkable, checked, focused, password bool

	act   action // what a tap does
	n     int    // kDots: dots shown; scrollable: the largest scroll offset
	kind  kind
	style style
	hint  string // drawn when text is empty; not in the XML
	glyph string // drawn in icons and image buttons; not in the XML
	modal bool   // takes every touch on the screen (a dialog's scrim); not in the XML

	children []*element
}

// kind says how an element is drawn.
type kind uint8

const (
	kBox       kind = iota // background, then one line of text
	kWallpaper             // a vertical gradient from style.bg to style.fg
	kIcon                  // a launcher icon: a rounded square with a glyph, the text below
	kBadge                 // a circle in style.bg with a glyph
	kField                 // an edit text: wrapped text or the hint, a caret when focused
	kSwitch                // a switch track and thumb
	kDots                  // n passcode dots
)

type align uint8

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// style is how an element looks; sizes are screen pixels.
type style struct {
	bg, fg  color.RGBA // zero bg: transparent
	size    int        // font size; 0 draws no text
	bold    bool
	align   align
	radius  int // corner radius of the background
	divider bool
}

// add attaches c under e, clipping it to e, and returns c. A child clipped away entirely is
// not attached (a list row scrolled out of view is not in the tree), nor are its children.
func (e *element) add(c *element) *element {
	c.bounds = c.box.Intersect(e.bounds)
	if c.pkg == "" {
		c.pkg = e.pkg
	}
	if !c.bounds.Empty() {
		e.children = append(e.children, c)
	}
	return c
}

// find returns the topmost, deepest element at pt for which ok is true.
func (e *element) find(pt image.Point, ok func(*element) bool) *element {
	if !pt.In(e.bounds) {
		return nil
	}
	for i := len(e.children) - 1; i >= 0; i-- {
		if f := e.children[i].find(pt, ok); f != nil {
			return f
		}
	}
	if ok(e) {
		return e
	}
	return nil
}

func isClickable(e *element) bool  { return e.clickable }
func isScrollable(e *element) bool { return e.scrollable }

// walk calls fn for e and every descendant, parents first.
func (e *element) walk(fn func(*element)) {
	fn(e)
	for _, c := range e.children {
		c.walk(fn)
	}
}
