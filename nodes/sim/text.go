package sim

import (
	"image"
	"image/color"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// fontSet holds the parsed Go fonts. Parsed once per process and never changed, it is shared
// by every phone; faces, which cache and are not safe for concurrent use, are made per render.
type fontSet struct{ regular, bold *opentype.Font }

var fonts = sync.OnceValue(func() fontSet {
	return fontSet{regular: mustParse(goregular.TTF), bold: mustParse(gobold.TTF)}
})

func mustParse(ttf []byte) *opentype.Font {
	f, err := opentype.Parse(ttf)
	if err != nil {
		panic("sim: parsing an embedded Go font: " + err.Error()) // the font ships with x/image
	}
	return f
}

type faceKey struct {
	size int
	bold bool
}

// faces makes the font faces one render needs, each once.
type faces map[faceKey]font.Face

func (fs faces) get(size int, bold bool) font.Face {
	k := faceKey{size: max(size, 1), bold: bold}
	if f, ok := fs[k]; ok {
		return f
	}
	src := fonts().regular
	if bold {
		src = fonts().bold
	}
	f, err := opentype.NewFace(src, &opentype.FaceOptions{Size: float64(k.size), DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		panic("sim: making a font face: " + err.Error()) // only bad options fail, and ours are fixed
	}
	fs[k] = f
	return f
}

// text draws s on one line in box, vertically centred, clipped to clip and shortened with an
// ellipsis if it does not fit.
func (r *painter) text(s string, box, clip image.Rectangle, size int, bold bool, fg color.RGBA, a align) {
	if s == "" || size <= 0 {
		return
	}
	dst, ok := r.dst.SubImage(clip).(*image.RGBA)
	if !ok || dst.Rect.Empty() {
		return
	}
	d := font.Drawer{Dst: dst, Src: image.NewUniform(fg), Face: r.faces.get(size, bold)}
	s = fit(&d, s, box.Dx())
	w := d.MeasureString(s).Ceil()
	x := box.Min.X
	switch a {
	case alignCenter:
		x += (box.Dx() - w) / 2
	case alignRight:
		x = box.Max.X - w
	}
	m := d.Face.Metrics()
	asc, desc := m.Ascent.Ceil(), m.Descent.Ceil()
	d.Dot = fixed.P(x, box.Min.Y+(box.Dy()-asc-desc)/2+asc)
	d.DrawString(s)
}

// fit shortens s with "…" until it is at most width pixels wide.
func fit(d *font.Drawer, s string, width int) string {
	if d.MeasureString(s).Ceil() <= width {
		return s
	}
	rs := []rune(s)
	for n := len(rs) - 1; n > 0; n-- {
		t := string(rs[:n]) + "…"
		if d.MeasureString(t).Ceil() <= width {
			return t
		}
	}
	return "…"
}

// wrap breaks s into lines at most width pixels wide: at newlines, then between words, and
// inside words longer than a line.
func wrap(d *font.Drawer, s string, width int) []string {
	var out []string
	for _, para := range strings.Split(strings.ReplaceAll(s, "\t", "    "), "\n") {
		cur := ""
		for _, word := range strings.SplitAfter(para, " ") {
			if d.MeasureString(cur+word).Ceil() <= width {
				cur += word
				continue
			}
			if cur != "" {
				out = append(out, cur)
				cur = ""
			}
			for n := breakAt(d, word, width); n < len(word); n = breakAt(d, word, width) {
				out = append(out, word[:n])
				word = word[n:]
			}
			cur = word
		}
		out = append(out, cur)
	}
	return out
}

// breakAt returns how many bytes of word fit in width, at least one rune's worth. It sums
// advances instead of measuring prefixes, so a very long word wraps in linear time.
func breakAt(d *font.Drawer, word string, width int) int {
	var w fixed.Int26_6
	limit := fixed.I(width)
	for i, r := range word {
		adv, _ := d.Face.GlyphAdvance(r)
		if w += adv; w > limit {
			if i == 0 {
				_, n := utf8.DecodeRuneInString(word)
				return n
			}
			return i
		}
	}
	return len(word)
}
