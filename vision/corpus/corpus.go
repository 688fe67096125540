package corpus

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"slices"

	"golang.org/x/image/font"
)

// Layout is the kind of screen drawn.
type Layout string

// The layouts.
const (
	Settings Layout = "settings" // a title, a button, rows of an icon, a label and a value, a navigation bar
	Apps     Layout = "apps"     // a search bar, a grid of icons with their names under them, a dock
	Chat     Layout = "chat"     // rows of an avatar, a name, a message and a time
	Form     Layout = "form"     // fields with labels and placeholders, a check box, two buttons, a link
)

// Layouts are every layout; ChineseLayouts those that can be drawn in Chinese.
var (
	Layouts        = []Layout{Settings, Apps, Chat, Form}
	ChineseLayouts = []Layout{Settings, Apps}
)

// Spec says which screen to draw. The same Spec draws the same screen.
type Spec struct {
	Layout  Layout
	Dark    bool
	Chinese bool    // Chinese text (Settings and Apps only), in the CJK font
	Font    Font    // the Latin text's font; empty: Regular
	Size    float64 // body text in pixels (28 to 72); 0: 44
	Seed    uint64  // which words, icons and values
	Width   int     // 0: 1080
	Height  int     // 0: 2400
}

// Name is spec's name in reports: layout/theme/font-size/seed.
func (sp Spec) Name() string {
	sp = sp.withDefaults()
	th := "light"
	if sp.Dark {
		th = "dark"
	}
	lang := ""
	if sp.Chinese {
		lang = "zh-"
	}
	return fmt.Sprintf("%s%s/%s/%s-%.0f/%d", lang, sp.Layout, th, sp.Font, sp.Size, sp.Seed)
}

func (sp Spec) withDefaults() Spec {
	if sp.Font == "" {
		sp.Font = Regular
	}
	if sp.Chinese {
		sp.Font = CJK
	}
	if sp.Size == 0 {
		sp.Size = 44
	}
	if sp.Width == 0 {
		sp.Width = 1080
	}
	if sp.Height == 0 {
		sp.Height = 2400
	}
	return sp
}

// Draw draws the screen sp describes.
func Draw(sp Spec) (*Screen, error) {
	sp = sp.withDefaults()
	switch {
	case !slices.Contains(Layouts, sp.Layout):
		return nil, fmt.Errorf("unknown layout %q (have %v)", sp.Layout, Layouts)
	case sp.Chinese && !slices.Contains(ChineseLayouts, sp.Layout):
		return nil, fmt.Errorf("layout %s has no Chinese version (have %v)", sp.Layout, ChineseLayouts)
	case sp.Size < 28 || sp.Size > 72:
		return nil, fmt.Errorf("text size %v: need 28 to 72 pixels", sp.Size)
	case sp.Width < 720 || sp.Width > 2000 || sp.Height < 1200 || sp.Height > 4000:
		return nil, fmt.Errorf("screen %d×%d: need 720-2000 × 1200-4000 pixels", sp.Width, sp.Height)
	}
	th := Light
	if sp.Dark {
		th = Dark
	}
	d := &drawer{sp: sp, c: newCanvas(sp.Width, sp.Height, th), rng: rand.New(rand.NewPCG(sp.Seed, 0x636f7270757321))}
	var err error
	if d.body, err = face(sp.Font, sp.Size); err != nil {
		return nil, err
	}
	if d.small, err = face(sp.Font, d.smallSize()); err != nil {
		return nil, err
	}
	titleFont := Bold
	if sp.Font == Mono || sp.Font == CJK {
		titleFont = sp.Font
	}
	if d.title, err = face(titleFont, 1.6*sp.Size); err != nil {
		return nil, err
	}
	d.patterns = iconPatterns(d.rng)
	switch sp.Layout {
	case Settings:
		d.settings()
	case Apps:
		d.apps()
	case Chat:
		d.chat()
	case Form:
		d.form()
	}
	s := d.c.s
	s.Name, s.Lang = sp.Name(), "eng"
	if sp.Chinese {
		s.Lang = "chi_sim"
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return s, nil
}

// check holds the truth to its promises: boxes on the screen, element texts unique.
func (s *Screen) check() error {
	b := s.Image.Bounds()
	for _, w := range s.Words {
		if w.Text == "" || w.Box.Empty() || !w.Box.In(b) {
			return fmt.Errorf("word %q at %v is off the %v screen", w.Text, w.Box, b)
		}
	}
	seen := map[string]bool{}
	for _, e := range s.Elements {
		if seen[e.Text] || e.Box.Empty() || !e.Box.In(b) {
			return fmt.Errorf("element %q at %v is twice or off the screen", e.Text, e.Box)
		}
		seen[e.Text] = true
	}
	for _, ic := range s.Icons {
		if !ic.Box.In(b) {
			return fmt.Errorf("icon at %v is off the screen", ic.Box)
		}
	}
	if len(s.Words) == 0 {
		return errors.New("no words drawn")
	}
	return nil
}

// drawer draws one screen.
type drawer struct {
	sp                 Spec
	c                  *canvas
	rng                *rand.Rand
	body, small, title font.Face
	patterns           []int
	icons              int
}

func (d *drawer) smallSize() float64 { return max(28, 0.8*d.sp.Size) }
func (d *drawer) px(f float64) int   { return int(f*d.sp.Size + 0.5) }

// pick returns n distinct entries of list, in a seeded order.
func (d *drawer) pick(list []string, n int) []string {
	out := slices.Clone(list)
	d.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:min(n, len(out))]
}

var iconColors = []color.RGBA{
	rgb(0x1a, 0x73, 0xe8), rgb(0x34, 0xa8, 0x53), rgb(0xea, 0x43, 0x35), rgb(0xc8, 0x90, 0x04),
	rgb(0x9c, 0x27, 0xb0), rgb(0x00, 0x96, 0x88), rgb(0xff, 0x57, 0x22), rgb(0x60, 0x7d, 0x8b),
}

// iconPatterns are the 3×3 patterns of 3 to 6 cells, in a seeded order: a screen's icons each
// take the next, so no two look alike.
func iconPatterns(rng *rand.Rand) []int {
	var out []int
	for p := range 1 << 9 {
		if n := popcount(p); n >= 3 && n <= 6 {
			out = append(out, p)
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func popcount(p int) int {
	n := 0
	for ; p != 0; p &= p - 1 {
		n++
	}
	return n
}

// icon draws the screen's next icon, side px, at (x, y).
func (d *drawer) icon(x, y, side int, round bool) image.Rectangle {
	r := image.Rect(x, y, x+side, y+side)
	d.c.icon(r, d.patterns[d.icons%len(d.patterns)], iconColors[d.rng.IntN(len(iconColors))], round)
	d.icons++
	return r
}

// statusBar draws the time and a battery; it returns the bar's bottom.
func (d *drawer) statusBar() int {
	c, w := d.c, d.sp.Width
	h := max(80, d.px(2))
	c.fill(image.Rect(0, 0, w, h), c.th.Bar)
	c.text(d.small, c.th.FG, 48, h/2+int(d.smallSize()*0.36), "9:41")
	c.fill(image.Rect(w-120, h/2-14, w-60, h/2+14), c.th.Dim)
	return h
}

// navBar draws a bottom bar with three icons; it returns its top.
func (d *drawer) navBar() int {
	c, w, h := d.c, d.sp.Width, d.sp.Height
	side := max(72, min(120, d.px(2)))
	top := h - side - 24
	c.fill(image.Rect(0, top, w, h), c.th.Bar)
	for i := range 3 {
		x := w*(2*i+1)/6 - side/2
		d.icon(x, top+12, side, false)
	}
	return top
}

// settings: a title and a button, rows of an icon, a label and maybe a value, a navigation bar.
func (d *drawer) settings() {
	c, w := d.c, d.sp.Width
	labels, values, title, button := settingsLabels, settingsValues, "Settings", "Search"
	if d.sp.Chinese {
		labels, values, title, button = zhSettingsLabels, append(slices.Clone(zhSettingsValues), "82%", "64 GB", "3"), "设置", "搜索"
	}
	top := d.statusBar()
	base := top + d.px(1.2) + int(1.6*d.sp.Size)
	c.text(d.title, c.th.FG, 60, base, title)
	bw := width(d.body, button) + d.px(1.6)
	br := image.Rect(w-60-bw, base-d.px(1.7), w-60, base+d.px(0.5))
	c.fill(br, c.th.Accent)
	c.textCentred(d.body, c.th.On, (br.Min.X+br.Max.X)/2, (br.Min.Y+br.Max.Y)/2+int(0.36*d.sp.Size), button)
	c.element(button, br)
	bottom := d.navBar()
	rowH := d.px(3.6)
	y := base + d.px(1.2)
	n := (bottom - y) / rowH
	icon := d.px(2.2)
	for _, label := range d.pick(labels, n) {
		d.icon(60, y+(rowH-icon)/2, icon, false)
		x := 60 + icon + d.px(1)
		mid := y + rowH/2 + int(0.36*d.sp.Size)
		c.text(d.body, c.th.FG, x, mid, label)
		if d.rng.IntN(4) > 0 {
			v := values[d.rng.IntN(len(values))]
			c.textRight(d.small, c.th.Dim, w-60, mid, v)
		}
		c.fill(image.Rect(x, y+rowH-2, w, y+rowH), c.th.Line)
		c.element(label, image.Rect(0, y, w, y+rowH-2))
		y += rowH
	}
}

// apps: a search bar, a grid of icons with their names, a dock of icons.
func (d *drawer) apps() {
	c, w := d.c, d.sp.Width
	names, search := appNames, "Search apps"
	if d.sp.Chinese {
		names, search = zhAppNames, "搜索应用"
	}
	top := d.statusBar()
	bar := image.Rect(48, top+d.px(0.8), w-48, top+d.px(0.8)+d.px(2.4))
	c.fill(bar, c.th.Bar)
	c.text(d.body, c.th.Dim, bar.Min.X+d.px(1.2), (bar.Min.Y+bar.Max.Y)/2+int(0.36*d.sp.Size), search)
	c.element(search, bar)
	// The dock: icons without names.
	side := min(160, d.px(3))
	dockTop := d.sp.Height - side - 60
	c.fill(image.Rect(0, dockTop-30, w, d.sp.Height), c.th.Bar)
	for i := range 4 {
		d.icon(w*(2*i+1)/8-side/2, dockTop, side, false)
	}
	cols := 4
	cellW := w / cols
	cellH := side + int(2.2*d.smallSize()) + 40
	y := bar.Max.Y + d.px(1.2)
	rows := (dockTop - 60 - y) / cellH
	queue := d.pick(names, len(names))
	for r := range rows {
		for col := range cols {
			name := ""
			for len(queue) > 0 && name == "" {
				name, queue = queue[0], queue[1:]
				if width(d.small, name) > cellW-16 {
					name = ""
				}
			}
			if name == "" {
				return
			}
			x0, y0 := col*cellW, y+r*cellH
			d.icon(x0+(cellW-side)/2, y0+20, side, false)
			c.textCentred(d.small, c.th.FG, x0+cellW/2, y0+20+side+int(1.2*d.smallSize()), name)
			c.element(name, image.Rect(x0, y0, x0+cellW, y0+cellH))
		}
	}
}

// chat: a title, rows of an avatar, a name, a message and a time.
func (d *drawer) chat() {
	c, w := d.c, d.sp.Width
	top := d.statusBar()
	base := top + d.px(1.2) + int(1.6*d.sp.Size)
	c.text(d.title, c.th.FG, 60, base, "Chats")
	rowH := d.px(1.9) + int(2*d.smallSize()) + 20
	avatar := d.px(2.4)
	y := base + d.px(1)
	n := (d.sp.Height - 40 - y) / rowH
	names := d.pick(chatNames, n)
	msgs := d.pick(chatMessages, len(chatMessages))
	for i, name := range names {
		d.icon(48, y+(rowH-avatar)/2, avatar, true)
		x := 48 + avatar + d.px(0.8)
		nameBase := y + rowH/2 - 8
		c.text(d.body, c.th.FG, x, nameBase, name)
		c.text(d.small, c.th.Dim, x, nameBase+int(1.4*d.smallSize()), msgs[i%len(msgs)])
		c.textRight(d.small, c.th.Dim, w-48, nameBase, chatTimes[d.rng.IntN(len(chatTimes))])
		c.fill(image.Rect(x, y+rowH-2, w, y+rowH), c.th.Line)
		c.element(name, image.Rect(0, y, w, y+rowH-2))
		y += rowH
	}
}

// form: a title, labelled fields with placeholders, a check box, a filled and an outlined
// button, a link and a footer.
func (d *drawer) form() {
	c, w := d.c, d.sp.Width
	f := forms[d.rng.IntN(len(forms))]
	top := d.statusBar()
	y := top + d.px(1.5) + int(1.6*d.sp.Size)
	c.text(d.title, c.th.FG, 60, y, f.title)
	y += d.px(1.2)
	fieldH := d.px(2.6)
	for _, fl := range f.fields {
		y += int(1.4 * d.smallSize())
		c.text(d.small, c.th.FG, 60, y, fl[0])
		y += d.px(0.5)
		r := image.Rect(60, y, w-60, y+fieldH)
		c.frame(r, 3, c.th.Line)
		c.text(d.body, c.th.Dim, r.Min.X+d.px(0.6), (r.Min.Y+r.Max.Y)/2+int(0.36*d.sp.Size), fl[1])
		c.element(fl[1], r)
		y = r.Max.Y + d.px(0.6)
	}
	// The check box: a square outline, ticked, and its label.
	box := d.px(0.9)
	y += d.px(0.4)
	sq := image.Rect(60, y, 60+box, y+box)
	c.frame(sq, 3, c.th.FG)
	c.fill(image.Rect(sq.Min.X+box/4, sq.Min.Y+box/4, sq.Max.X-box/4, sq.Max.Y-box/4), c.th.Accent)
	lr := c.text(d.body, c.th.FG, sq.Max.X+d.px(0.5), (sq.Min.Y+sq.Max.Y)/2+int(0.36*d.sp.Size), f.check)
	c.element(f.check, sq.Union(lr).Inset(-12))
	y = sq.Max.Y + d.px(1.2)
	btnH := d.px(2.4)
	primary := image.Rect(60, y, w-60, y+btnH)
	c.fill(primary, c.th.Accent)
	c.textCentred(d.body, c.th.On, w/2, (primary.Min.Y+primary.Max.Y)/2+int(0.36*d.sp.Size), f.primary)
	c.element(f.primary, primary)
	y = primary.Max.Y + d.px(0.6)
	second := image.Rect(60, y, w-60, y+btnH)
	c.frame(second, 4, c.th.Accent)
	c.textCentred(d.body, c.th.FG, w/2, (second.Min.Y+second.Max.Y)/2+int(0.36*d.sp.Size), f.second)
	c.element(f.second, second)
	y = second.Max.Y + d.px(1.4)
	link := c.textCentred(d.body, c.th.Accent, w/2, y, f.link)
	c.element(f.link, link.Inset(-16))
	c.textCentred(d.small, c.th.Dim, w/2, d.sp.Height-d.px(1.5), f.footer)
}
