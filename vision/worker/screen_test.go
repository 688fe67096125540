//go:build vision

package worker

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"testing"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// The test screens are drawn here, so every word's box is known.

// cjkFontPath is a Chinese font Debian's fonts-wqy-microhei installs (make setup).
const cjkFontPath = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"

// gtWord is a word drawn on a test screen, with the box of its ink.
type gtWord struct {
	text string
	box  image.Rectangle
}

// theme is a screen's colours.
type theme struct {
	bg, fg, dim, bar color.RGBA
}

var (
	lightTheme = theme{bg: rgb(0xfa, 0xfa, 0xfa), fg: rgb(0x20, 0x20, 0x20), dim: rgb(0x70, 0x70, 0x70), bar: rgb(0xe8, 0xe8, 0xf0)}
	darkTheme  = theme{bg: rgb(0x12, 0x12, 0x14), fg: rgb(0xee, 0xee, 0xee), dim: rgb(0xa0, 0xa0, 0xa8), bar: rgb(0x24, 0x24, 0x2a)}
)

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{R: r, G: g, B: b, A: 255} }

// screen is a drawn screen and what is on it.
type screen struct {
	img   *image.RGBA
	words []gtWord
	icons []image.Rectangle
}

func face(t testing.TB, ttf []byte, size float64) font.Face {
	t.Helper()
	f, err := opentype.Parse(ttf)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	return fc
}

func cjkFace(t testing.TB, size float64) font.Face {
	t.Helper()
	data, err := os.ReadFile(cjkFontPath)
	if err != nil {
		t.Fatalf("the Chinese test font is missing (make setup installs fonts-wqy-microhei): %v", err)
	}
	ttf, err := firstFont(data)
	if err != nil {
		t.Fatal(err)
	}
	f, err := opentype.Parse(ttf)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	return fc
}

// firstFont is the first font of a TrueType collection as a font file of its own: x/image's
// sfnt refuses the collections Debian's CJK fonts come in ("invalid table offset"), and
// accepts their fonts with the tables copied out and 4-byte aligned.
func firstFont(ttc []byte) ([]byte, error) {
	be := binary.BigEndian
	if len(ttc) < 16 || string(ttc[:4]) != "ttcf" {
		return nil, errors.New("not a TrueType collection")
	}
	dir := int(be.Uint32(ttc[12:]))
	if dir+12 > len(ttc) {
		return nil, errors.New("collection truncated")
	}
	n := int(be.Uint16(ttc[dir+4:]))
	if dir+12+16*n > len(ttc) {
		return nil, errors.New("collection truncated")
	}
	out := append([]byte(nil), ttc[dir:dir+12+16*n]...)
	for i := range n {
		rec := 12 + 16*i
		off, length := int(be.Uint32(out[rec+8:])), int(be.Uint32(out[rec+12:]))
		if off < 0 || length < 0 || off+length > len(ttc) {
			return nil, errors.New("collection table out of bounds")
		}
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		be.PutUint32(out[rec+8:], uint32(len(out)))
		out = append(out, ttc[off:off+length]...)
	}
	return out, nil
}

// text draws words from x on the baseline y, a space apart, and returns where each went.
// sep draws nothing between words: Chinese words sit side by side.
func (s *screen) text(fc font.Face, c color.Color, x, y int, sep bool, words ...string) int {
	d := &font.Drawer{Dst: s.img, Src: image.NewUniform(c), Face: fc, Dot: fixed.P(x, y)}
	space := d.MeasureString(" ")
	for i, w := range words {
		if i > 0 && sep {
			d.Dot.X += space
		}
		b, adv := d.BoundString(w)
		s.words = append(s.words, gtWord{text: w, box: image.Rect(b.Min.X.Floor(), b.Min.Y.Floor(), b.Max.X.Ceil(), b.Max.Y.Ceil())})
		d.DrawString(w)
		_ = adv
	}
	return d.Dot.X.Ceil()
}

func (s *screen) fill(r image.Rectangle, c color.Color) {
	draw.Draw(s.img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

// icon draws a 96 px app icon at (x, y): a coloured square with a white pattern of up to
// four cells, the bits of n, so no two of the first fifteen look alike.
func (s *screen) icon(x, y, n int, c color.RGBA) image.Rectangle {
	r := image.Rect(x, y, x+96, y+96)
	s.fill(r, c)
	white := rgb(0xff, 0xff, 0xff)
	for bit := range 4 {
		if n&(1<<bit) == 0 {
			continue
		}
		cx, cy := x+14+(bit%2)*38, y+14+(bit/2)*38
		s.fill(image.Rect(cx, cy, cx+30, cy+30), white)
	}
	s.fill(image.Rect(x+40, y+40, x+56, y+56), rgb(0x10, 0x10, 0x10)) // a dot in the middle: texture in every icon
	s.icons = append(s.icons, r)
	return r
}

var settingsRows = []struct{ label, value []string }{
	{[]string{"Network", "and", "internet"}, []string{"Connected"}},
	{[]string{"Bluetooth", "devices"}, []string{"Off"}},
	{[]string{"Display", "brightness"}, []string{"Automatic"}},
	{[]string{"Sound", "and", "vibration"}, []string{"Ring"}},
	{[]string{"Battery", "saver"}, []string{"82%"}},
	{[]string{"Storage", "usage"}, []string{"64", "GB"}},
	{[]string{"Privacy", "controls"}, nil},
	{[]string{"Location", "services"}, []string{"On"}},
	{[]string{"Security", "updates"}, []string{"2026"}},
	{[]string{"Accounts"}, []string{"3"}},
	{[]string{"System", "language"}, []string{"English"}},
	{[]string{"About", "phone"}, []string{"Pixel"}},
}

var iconColors = []color.RGBA{
	rgb(0x1a, 0x73, 0xe8), rgb(0x34, 0xa8, 0x53), rgb(0xea, 0x43, 0x35), rgb(0xfb, 0xbc, 0x04),
	rgb(0x9c, 0x27, 0xb0), rgb(0x00, 0x96, 0x88), rgb(0xff, 0x57, 0x22), rgb(0x60, 0x7d, 0x8b),
}

// settingsScreen draws a 1080×2400 phone settings screen: a status bar, a title, twelve rows
// of an icon, a label and a value, and a navigation bar.
func settingsScreen(t testing.TB, th theme) *screen {
	t.Helper()
	s := &screen{img: image.NewRGBA(image.Rect(0, 0, 1080, 2400))}
	s.fill(s.img.Bounds(), th.bg)
	regular := face(t, goregular.TTF, 44)
	small := face(t, goregular.TTF, 36)
	bold := face(t, gobold.TTF, 72)
	s.fill(image.Rect(0, 0, 1080, 96), th.bar)
	s.text(small, th.fg, 48, 64, true, "9:41")
	s.fill(image.Rect(960, 36, 1020, 64), th.dim) // battery
	s.text(bold, th.fg, 60, 230, true, "Settings")
	// A button: white text on blue, in either theme.
	s.fill(image.Rect(740, 150, 1020, 250), rgb(0x1a, 0x73, 0xe8))
	s.text(regular, rgb(0xff, 0xff, 0xff), 790, 215, true, "Search")
	for i, row := range settingsRows {
		y := 320 + i*160
		s.icon(60, y+16, i+1, iconColors[i%len(iconColors)])
		s.text(regular, th.fg, 200, y+80, true, row.label...)
		if row.value != nil {
			s.text(small, th.dim, 760, y+80, true, row.value...)
		}
		s.fill(image.Rect(200, y+156, 1080, y+158), th.bar)
	}
	s.fill(image.Rect(0, 2280, 1080, 2400), th.bar)
	for i, x := range []int{200, 492, 784} {
		s.icon(x, 2292, 13+i, iconColors[(i+3)%len(iconColors)])
	}
	return s
}

// chineseScreen draws Chinese settings labels, one a line, and returns them.
func chineseScreen(t testing.TB) (*screen, []string) {
	t.Helper()
	s := &screen{img: image.NewRGBA(image.Rect(0, 0, 1080, 1200))}
	s.fill(s.img.Bounds(), lightTheme.bg)
	fc := cjkFace(t, 52)
	lines := []string{"设置", "无线网络", "蓝牙设备", "显示亮度", "声音和振动", "电池", "存储空间", "关于手机"}
	for i, l := range lines {
		s.text(fc, lightTheme.fg, 80, 120+i*130, false, l)
	}
	return s, lines
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// scaled is img resized by f.
func scaled(img image.Image, f float64) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, int(float64(b.Dx())*f+0.5), int(float64(b.Dy())*f+0.5)))
	xdraw.CatmullRom.Scale(out, out.Bounds(), img, b, xdraw.Src, nil)
	return out
}

// crop copies r of img.
func crop(img image.Image, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	return out
}

func scaleRectF(r image.Rectangle, f float64) image.Rectangle {
	return image.Rect(int(float64(r.Min.X)*f+0.5), int(float64(r.Min.Y)*f+0.5), int(float64(r.Max.X)*f+0.5), int(float64(r.Max.Y)*f+0.5))
}
