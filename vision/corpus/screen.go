package corpus

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strings"
	"unicode"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// Word is a word drawn on a screen and the box of its ink. A Chinese label (characters side by
// side, no spaces) is one word.
type Word struct {
	Text string
	Box  image.Rectangle
}

// Element is something a tap may aim at by its text: a list row, a button, a field, an app's
// cell. A tap on Text is right when it lands inside Box; Text is unique on its screen.
type Element struct {
	Text string
	Box  image.Rectangle
}

// Icon is a picture on a screen with no text: an app icon, an avatar. Its pattern is unique on
// its screen, so a template cut from it matches there only.
type Icon struct {
	Box image.Rectangle
}

// Screen is a drawn screen and its ground truth, in the pixels of Image.
type Screen struct {
	Name     string // layout/theme/font-size/seed, and the camera condition when one was applied
	Lang     string // Tesseract's name of its language: "eng" or "chi_sim"
	Image    *image.RGBA
	Words    []Word
	Elements []Element
	Icons    []Icon
}

// PNG is s's image, PNG-encoded.
func (s *Screen) PNG() ([]byte, error) { return EncodePNG(s.Image) }

// Element returns the element with text, or false.
func (s *Screen) Element(text string) (Element, bool) {
	for _, e := range s.Elements {
		if e.Text == text {
			return e, true
		}
	}
	return Element{}, false
}

// EncodePNG encodes img as a PNG, fast.
func EncodePNG(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
		return nil, fmt.Errorf("encode PNG: %w", err)
	}
	return b.Bytes(), nil
}

// Crop copies r of img into an image of its own (origin 0, 0).
func Crop(img image.Image, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	return out
}

// Scale is img resized by f (Catmull-Rom), as a phone of another density would show it.
func Scale(img image.Image, f float64) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, int(float64(b.Dx())*f+0.5), int(float64(b.Dy())*f+0.5)))
	xdraw.CatmullRom.Scale(out, out.Bounds(), img, b, xdraw.Src, nil)
	return out
}

// ScaleRect is r scaled by f, as Scale moves it.
func ScaleRect(r image.Rectangle, f float64) image.Rectangle {
	return image.Rect(int(float64(r.Min.X)*f+0.5), int(float64(r.Min.Y)*f+0.5), int(float64(r.Max.X)*f+0.5), int(float64(r.Max.Y)*f+0.5))
}

// IoU is the intersection over union of two boxes (0 when either is empty).
func IoU(a, b image.Rectangle) float64 {
	in := a.Intersect(b)
	if in.Empty() {
		return 0
	}
	i := float64(in.Dx() * in.Dy())
	return i / (float64(a.Dx()*a.Dy()+b.Dx()*b.Dy()) - i)
}

// Theme is a screen's colours.
type Theme struct {
	Name                       string
	BG, FG, Dim, Bar, Line, On color.RGBA // On: text on an Accent button
	Accent                     color.RGBA
}

// The themes.
var (
	Light = Theme{Name: "light", BG: rgb(0xfa, 0xfa, 0xfa), FG: rgb(0x20, 0x20, 0x20), Dim: rgb(0x70, 0x70, 0x70),
		Bar: rgb(0xe8, 0xe8, 0xf0), Line: rgb(0xd0, 0xd0, 0xd8), On: rgb(0xff, 0xff, 0xff), Accent: rgb(0x1a, 0x73, 0xe8)}
	Dark = Theme{Name: "dark", BG: rgb(0x12, 0x12, 0x14), FG: rgb(0xee, 0xee, 0xee), Dim: rgb(0xa0, 0xa0, 0xa8),
		Bar: rgb(0x24, 0x24, 0x2a), Line: rgb(0x3a, 0x3a, 0x44), On: rgb(0xff, 0xff, 0xff), Accent: rgb(0x1a, 0x73, 0xe8)}
)

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{R: r, G: g, B: b, A: 255} }

// canvas draws a screen and records its truth.
type canvas struct {
	s  *Screen
	th Theme
}

func newCanvas(w, h int, th Theme) *canvas {
	c := &canvas{s: &Screen{Image: image.NewRGBA(image.Rect(0, 0, w, h))}, th: th}
	c.fill(c.s.Image.Bounds(), th.BG)
	return c
}

func (c *canvas) fill(r image.Rectangle, col color.Color) {
	draw.Draw(c.s.Image, r, image.NewUniform(col), image.Point{}, draw.Src)
}

// frame draws r's outline, width px wide.
func (c *canvas) frame(r image.Rectangle, width int, col color.Color) {
	c.fill(image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+width), col)
	c.fill(image.Rect(r.Min.X, r.Max.Y-width, r.Max.X, r.Max.Y), col)
	c.fill(image.Rect(r.Min.X, r.Min.Y, r.Min.X+width, r.Max.Y), col)
	c.fill(image.Rect(r.Max.X-width, r.Min.Y, r.Max.X, r.Max.Y), col)
}

// width is how wide text is in fc, its words a space apart.
func width(fc font.Face, text string) int {
	return font.MeasureString(fc, text).Ceil()
}

// text draws text from x on the baseline y, in fc, and records each word (split at spaces; a
// run of CJK characters is one word). It returns the box of all its ink.
func (c *canvas) text(fc font.Face, col color.Color, x, y int, text string) image.Rectangle {
	d := &font.Drawer{Dst: c.s.Image, Src: image.NewUniform(col), Face: fc, Dot: fixed.P(x, y)}
	space := d.MeasureString(" ")
	var all image.Rectangle
	for i, w := range strings.Fields(text) {
		if i > 0 {
			d.Dot.X += space
		}
		b, _ := d.BoundString(w)
		r := image.Rect(b.Min.X.Floor(), b.Min.Y.Floor(), b.Max.X.Ceil(), b.Max.Y.Ceil())
		c.s.Words = append(c.s.Words, Word{Text: w, Box: r})
		all = all.Union(r)
		d.DrawString(w)
	}
	return all
}

// textRight draws text ending at x.
func (c *canvas) textRight(fc font.Face, col color.Color, x, y int, text string) image.Rectangle {
	return c.text(fc, col, x-width(fc, text), y, text)
}

// textCentred draws text centred on x.
func (c *canvas) textCentred(fc font.Face, col color.Color, x, y int, text string) image.Rectangle {
	return c.text(fc, col, x-width(fc, text)/2, y, text)
}

// icon draws an icon in r: a square of col (a disc when round) with a pattern of white cells
// on a 3×3 grid, the bits of pattern, and a dark dot in the middle (texture in every icon).
func (c *canvas) icon(r image.Rectangle, pattern int, col color.RGBA, round bool) {
	if round {
		cx, cy, rad := (r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2, r.Dx()/2
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if dx, dy := x-cx, y-cy; dx*dx+dy*dy <= rad*rad {
					c.s.Image.SetRGBA(x, y, col)
				}
			}
		}
	} else {
		c.fill(r, col)
	}
	cell := r.Dx() / 5
	white := rgb(0xff, 0xff, 0xff)
	for bit := range 9 {
		if pattern&(1<<bit) == 0 {
			continue
		}
		x, y := r.Min.X+cell/2+(bit%3)*(cell*3/2), r.Min.Y+cell/2+(bit/3)*(cell*3/2)
		c.fill(image.Rect(x, y, x+cell, y+cell), white)
	}
	m := (r.Min.X + r.Max.X) / 2
	n := (r.Min.Y + r.Max.Y) / 2
	dot := max(3, cell/3)
	c.fill(image.Rect(m-dot, n-dot, m+dot, n+dot), rgb(0x10, 0x10, 0x10))
	c.s.Icons = append(c.s.Icons, Icon{Box: r})
}

// element records a tappable element.
func (c *canvas) element(text string, r image.Rectangle) {
	c.s.Elements = append(c.s.Elements, Element{Text: text, Box: r})
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// hasCJK says whether s has a CJK character.
func hasCJK(s string) bool { return strings.IndexFunc(s, isCJK) >= 0 }
