package sim

import (
	"image"
	"image/color"
	"strings"
)

// Widget classes as uiautomator names them.
const (
	clsFrame    = "android.widget.FrameLayout"
	clsLinear   = "android.widget.LinearLayout"
	clsGroup    = "android.view.ViewGroup"
	clsText     = "android.widget.TextView"
	clsButton   = "android.widget.Button"
	clsImage    = "android.widget.ImageView"
	clsImageBtn = "android.widget.ImageButton"
	clsEdit     = "android.widget.EditText"
	clsSwitch   = "android.widget.Switch"
	clsRecycler = "androidx.recyclerview.widget.RecyclerView"
	clsGrid     = "android.widget.GridView"
	clsView     = "android.view.View"
	clsSurface  = "android.view.SurfaceView"
)

var (
	white     = rgb(0xffffff)
	ink       = rgb(0x202124) // body text
	grey      = rgb(0x5f6368) // secondary text
	pageBg    = rgb(0xf5f5f5)
	keyBg     = rgb(0x3c4470)
	wrongText = rgb(0xff8a80)
)

const (
	fixedClock = "12:00" // never the real time, so screenshots are deterministic
	fixedDate  = "Monday, January 1"
	battery    = "100%"
)

// layout scales the 1080x2400 design to the phone's screen: sizes and offsets by whichever of
// width and height is relatively smaller, so every page fits, while widths that span the
// screen use l.w itself.
type layout struct{ w, h int }

func (l layout) px(v int) int {
	if l.w*2400 <= l.h*1080 {
		return v * l.w / 1080
	}
	return v * l.h / 2400
}

// builder turns a state into its element tree.
type builder struct {
	st     *state
	l      layout
	serial string
}

// tree builds the element tree of what the phone shows now. Callers hold p.mu.
func (p *Phone) tree() *element {
	b := builder{st: &p.st, l: layout{p.size.Width, p.size.Height}, serial: p.serial}
	var root *element
	switch {
	case p.st.locked:
		root = b.lock()
	case p.st.cur.scr == scrHome:
		root = b.home()
	default:
		root = b.appPage()
	}
	if p.st.popup != nil && !p.st.locked {
		b.popup(root, p.st.popup)
	}
	if p.st.toast != "" {
		b.toast(root)
	}
	return root
}

func (b *builder) root(pkg string, k kind, st style) *element {
	r := image.Rect(0, 0, b.l.w, b.l.h)
	return &element{class: clsFrame, pkg: pkg, box: r, bounds: r, kind: k, style: st}
}

func (b *builder) text(id, s string, box image.Rectangle, size int, fg color.RGBA, bold bool, a align) *element {
	return &element{class: clsText, id: id, text: s, box: box, style: style{fg: fg, size: size, bold: bold, align: a}}
}

func (b *builder) statusBar(root *element, bg color.RGBA) {
	l := b.l
	h := l.px(100)
	bar := root.add(&element{class: clsFrame, id: systemPkg + ":id/status_bar", pkg: systemPkg,
		box: image.Rect(0, 0, l.w, h), style: style{bg: bg}})
	size := l.px(40)
	bar.add(b.text(systemPkg+":id/clock", fixedClock, image.Rect(l.px(48), 0, l.px(300), h), size, white, true, alignLeft))
	vol := bar.add(b.text(systemPkg+":id/volume", "Vol "+itoa(int(b.st.volume)), image.Rect(l.w-l.px(440), 0, l.w-l.px(210), h), size, white, false, alignRight))
	vol.desc = "Volume " + itoa(int(b.st.volume)) + " of " + itoa(maxVolume)
	bat := bar.add(b.text(systemPkg+":id/battery", battery, image.Rect(l.w-l.px(200), 0, l.w-l.px(48), h), size, white, true, alignRight))
	bat.desc = "Battery 100 percent"
}

func (b *builder) toast(root *element) {
	l := b.l
	box := image.Rect(l.w/2-l.px(380), l.h-l.px(380), l.w/2+l.px(380), l.h-l.px(260))
	root.add(&element{class: clsText, id: systemPkg + ":id/toast", pkg: systemPkg, text: b.st.toast, box: box,
		style: style{bg: rgb(0x323232), fg: white, size: l.px(42), align: alignCenter, radius: l.px(60)}})
}

// home is the launcher: a clock and a 4-column grid of app icons.
func (b *builder) home() *element {
	l := b.l
	root := b.root(launcherPkg, kWallpaper, style{bg: rgb(0x1a237e), fg: rgb(0x6a1b9a)})
	b.statusBar(root, color.RGBA{})
	root.add(b.text(launcherPkg+":id/clock", fixedClock, image.Rect(0, l.px(220), l.w, l.px(420)), l.px(170), white, true, alignCenter))
	root.add(b.text(launcherPkg+":id/date", fixedDate, image.Rect(0, l.px(430), l.w, l.px(500)), l.px(44), white, false, alignCenter))
	top, ch := l.px(700), l.px(330)
	rows := (len(apps) + 3) / 4
	grid := root.add(&element{class: clsGrid, id: launcherPkg + ":id/apps", box: image.Rect(0, top, l.w, top+rows*ch)})
	for i := range apps {
		a := &apps[i]
		c, r := i%4, i/4
		v := mainView(i)
		grid.add(&element{class: clsText, id: launcherPkg + ":id/app_" + strings.ToLower(a.name),
			text: a.name, desc: a.name, clickable: true, kind: kIcon, glyph: a.name[:1],
			box:   image.Rect(c*l.w/4, top+r*ch, (c+1)*l.w/4, top+(r+1)*ch),
			style: style{bg: a.color, fg: white, size: l.px(40), align: alignCenter},
			act:   action{op: actOpen, scr: v.scr, arg: v.arg}})
	}
	return root
}

// lock is the keyguard: clock, message, the dots entered so far and a 3x4 PIN pad.
func (b *builder) lock() *element {
	l := b.l
	root := b.root(systemPkg, kWallpaper, style{bg: rgb(0x0d1033), fg: rgb(0x2a1140)})
	b.statusBar(root, color.RGBA{})
	root.add(b.text(systemPkg+":id/lock_clock", fixedClock, image.Rect(0, l.px(260), l.w, l.px(480)), l.px(180), white, true, alignCenter))
	root.add(b.text(systemPkg+":id/lock_date", fixedDate, image.Rect(0, l.px(490), l.w, l.px(560)), l.px(44), white, false, alignCenter))
	msg, fg := "Enter passcode", white
	if b.st.wrong {
		msg, fg = "Wrong passcode", wrongText
	}
	root.add(b.text(systemPkg+":id/keyguard_message", msg, image.Rect(0, l.px(760), l.w, l.px(840)), l.px(48), fg, false, alignCenter))
	n := len(b.st.pin)
	root.add(&element{class: clsEdit, id: systemPkg + ":id/pinEntry", password: true, n: n, kind: kDots,
		desc: itoa(n) + " digits entered", box: image.Rect(l.px(140), l.px(880), l.w-l.px(140), l.px(980)),
		style: style{fg: white}})
	top, pitch, d := l.px(1080), l.px(250), l.px(200)
	pad := root.add(&element{class: clsGroup, id: systemPkg + ":id/keypad", box: image.Rect(0, top, l.w, top+4*pitch)})
	for k := 0; k < 12; k++ {
		col, row := k%3, k/3
		cx, cy := l.w/2+(col-1)*l.px(300), top+row*pitch+pitch/2
		key := &element{class: clsButton, clickable: true, box: image.Rect(cx-d/2, cy-d/2, cx+d/2, cy+d/2),
			style: style{bg: keyBg, fg: white, size: l.px(80), align: alignCenter, radius: d / 2}}
		switch {
		case k < 9 || k == 10:
			digit := k + 1
			if k == 10 {
				digit = 0
			}
			key.text, key.desc = itoa(digit), itoa(digit)
			key.id = systemPkg + ":id/key" + itoa(digit)
			key.act = action{op: actDigit, arg: int16(digit)}
		case k == 9:
			key.text, key.desc, key.id = "Delete", "Delete", systemPkg+":id/delete_button"
			key.style.size, key.act = l.px(40), action{op: actDelete}
		default:
			key.text, key.desc, key.id = "OK", "Enter", systemPkg+":id/key_enter"
			key.style.size, key.act = l.px(56), action{op: actEnter}
		}
		pad.add(key)
	}
	return root
}

// appPage is an app's frame (status bar, toolbar with back button and title) and its content.
func (b *builder) appPage() *element {
	l := b.l
	v := b.st.cur
	pkg := v.pkg()
	a := &app{}
	if i := appByPkg(pkg); i >= 0 {
		a = &apps[i]
	} else {
		*a = installedApp(pkg)
	}
	root := b.root(pkg, kBox, style{bg: pageBg})
	b.statusBar(root, shade(a.color))
	top := l.px(280)
	bar := root.add(&element{class: clsGroup, id: pkg + ":id/toolbar", box: image.Rect(0, l.px(100), l.w, top), style: style{bg: a.color}})
	bar.add(&element{class: clsImageBtn, id: pkg + ":id/back", desc: "Navigate up", clickable: true, glyph: "←",
		box: image.Rect(0, l.px(100), l.px(170), top), act: action{op: actBack},
		style: style{fg: white, size: l.px(72), align: alignCenter}})
	right := l.w - l.px(40)
	if v.scr == scrNotes {
		right = l.w - l.px(260)
		bar.add(&element{class: clsButton, id: pkg + ":id/clear", text: "Clear", desc: "Clear note", clickable: true,
			box: image.Rect(l.w-l.px(240), l.px(130), l.w-l.px(30), top-l.px(30)), act: action{op: actClear},
			style: style{bg: shade(a.color), fg: white, size: l.px(44), bold: true, align: alignCenter, radius: l.px(60)}})
	}
	bar.add(b.text(pkg+":id/title", b.title(a), image.Rect(l.px(170), l.px(100), right, top), l.px(60), white, true, alignLeft))
	content := root.add(&element{class: clsFrame, id: pkg + ":id/content", box: image.Rect(0, top, l.w, l.h)})
	switch v.scr {
	case scrSettings:
		b.settings(content)
	case scrSetting:
		b.setting(content, int(v.arg))
	case scrShop:
		b.shop(content)
	case scrShopItem:
		b.shopItem(content, int(v.arg))
	case scrNotes:
		b.notes(content)
	case scrInstalled:
		b.installed(content, a)
	default:
		b.simple(content, int(v.arg))
	}
	return root
}

func (b *builder) title(a *app) string {
	switch v := b.st.cur; v.scr {
	case scrSetting:
		return settingRows[v.arg].name
	case scrShopItem:
		return itemName(int(v.arg))
	}
	return a.name
}

// simple is the page of an app without a screen of its own: lines of text and maybe a button.
func (b *builder) simple(content *element, i int) {
	l, a := b.l, &apps[i]
	lines, button, act := a.lines, a.button, action{op: actToast, arg: int16(i)}
	if i == appMusic {
		status := "Paused"
		button, act = "Play", action{op: actToggle, arg: bitPlaying}
		if b.st.flags&flagPlaying != 0 {
			status, button = "Playing", "Pause"
		}
		lines = append(lines[:len(lines):len(lines)], line{status, 46, false})
	}
	y := content.box.Min.Y + l.px(60)
	for n, ln := range lines {
		h := l.px(ln.size * 3 / 2)
		content.add(b.text(a.pkg+":id/line"+itoa(n+1), ln.text, image.Rect(l.px(60), y, l.w-l.px(60), y+h),
			l.px(ln.size), ink, ln.bold, alignCenter))
		y += h
	}
	if button == "" {
		return
	}
	y += l.px(60)
	content.add(&element{class: clsButton, id: a.pkg + ":id/button", text: button, desc: button, clickable: true,
		box: image.Rect(l.px(240), y, l.w-l.px(240), y+l.px(160)), act: act,
		style: style{bg: a.color, fg: white, size: l.px(52), bold: true, align: alignCenter, radius: l.px(80)}})
}

// shade darkens c for status bars and pressed looks.
func shade(c color.RGBA) color.RGBA {
	return color.RGBA{R: uint8(int(c.R) * 3 / 4), G: uint8(int(c.G) * 3 / 4), B: uint8(int(c.B) * 3 / 4), A: c.A}
}
