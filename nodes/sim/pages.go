package sim

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"unicode/utf8"
)

// settingRow is one row of the Settings list and its detail page. Values may hold {serial},
// {volume}, {size} and {model}, filled in when the page is built.
type settingRow struct {
	name       string
	summary    string
	summaryOff string // the summary while the row's toggle is off
	color      color.RGBA
	bit        int    // the flag bit the detail page's switch flips; -1 for none
	switchText string // the switch row's label
	details    [][2]string
}

// settingRows is the Settings list, in order. It is never modified.
var settingRows = [...]settingRow{
	{"Wi-Fi", "Connected to CorralNet", "Off", rgb(0x1a73e8), bitWiFi, "Use Wi-Fi", [][2]string{
		{"Network", "CorralNet"}, {"Signal strength", "Excellent"}, {"IP address", "10.0.2.15"}, {"Frequency", "5 GHz"}}},
	{"Bluetooth", "On", "Off", rgb(0x1e88e5), bitBluetooth, "Use Bluetooth", [][2]string{
		{"Device name", "{model}"}, {"Paired devices", "None"}}},
	{"Display", "Brightness, dark theme, font size", "", rgb(0xf9ab00), -1, "", [][2]string{
		{"Brightness", "80%"}, {"Dark theme", "Off"}, {"Screen timeout", "30 seconds"}, {"Resolution", "{size}"}}},
	{"Sound", "Volume {volume} of 15", "", rgb(0x12b5cb), -1, "", [][2]string{
		{"Media volume", "{volume} of 15"}, {"Ringtone", "Corral Chime"}, {"Vibrate for calls", "On"}}},
	{"Notifications", "12 apps can send notifications", "", rgb(0xe8710a), -1, "", [][2]string{
		{"Do Not Disturb", "Off"}, {"Notification history", "Off"}, {"On the lock screen", "Show all"}}},
	{"Battery", "100% - Fully charged", "", rgb(0x188038), -1, "", [][2]string{
		{"Battery level", "100%"}, {"Battery saver", "Off"}, {"Charging", "Plugged in"}}},
	{"Storage", "12.4 GB used of 128 GB", "", rgb(0x9334e6), -1, "", [][2]string{
		{"Used", "12.4 GB of 128 GB"}, {"Apps", "3.1 GB"}, {"Photos", "1.2 GB"}, {"Free", "115.6 GB"}}},
	{"Location", "On - 3 apps have access", "Off", rgb(0x1a73e8), bitLocation, "Use location", [][2]string{
		{"Recent access", "Maps, Weather"}, {"Wi-Fi scanning", "On"}}},
	{"Security", "Screen lock: PIN", "", rgb(0xd93025), -1, "", [][2]string{
		{"Screen lock", "PIN"}, {"Device encryption", "Encrypted"}, {"Security update", "January 1"}}},
	{"Apps", "12 apps installed", "", rgb(0x5f6368), -1, "", [][2]string{
		{"Installed apps", "12"}, {"Default browser", "Browser"}, {"Default SMS app", "Messages"}}},
	{"About phone", "{model}", "", rgb(0x3c4043), -1, "", [][2]string{
		{"Device name", "{model}"}, {"Model", "{model}"}, {"Serial number", "{serial}"},
		{"Android version", "14"}, {"SDK", "34"}, {"Build number", "CORRAL.14.0.SIM"}}},
}

// fill replaces the placeholders of a settingRow value.
func (b *builder) fill(s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	return strings.NewReplacer("{serial}", b.serial, "{model}", model, "{volume}", itoa(int(b.st.volume)),
		"{size}", itoa(b.l.w)+" x "+itoa(b.l.h)).Replace(s)
}

// list adds a vertical list that scrolls through n rows of height rowH; row builds row i at y.
func (b *builder) list(content *element, id string, n, rowH int, row func(list *element, i, y int)) {
	box := content.box
	maxScroll := max(0, n*rowH-box.Dy())
	scroll := clamp(int(b.st.cur.scroll), 0, maxScroll)
	list := content.add(&element{class: clsRecycler, id: id, box: box, scrollable: maxScroll > 0, n: maxScroll})
	for i := scroll / rowH; i < n; i++ {
		y := box.Min.Y + i*rowH - scroll
		if y >= box.Max.Y {
			break
		}
		row(list, i, y)
	}
}

func (b *builder) settings(content *element) {
	l := b.l
	pkg := apps[appSettings].pkg
	b.list(content, pkg+":id/list", len(settingRows), l.px(190), func(list *element, i, y int) {
		s := &settingRows[i]
		summary := s.summary
		if s.bit >= 0 && b.st.flags&(1<<s.bit) == 0 {
			summary = s.summaryOff
		}
		row := list.add(&element{class: clsLinear, id: pkg + ":id/row", desc: s.name, clickable: true,
			box: image.Rect(0, y, l.w, y+l.px(190)), act: action{op: actOpen, scr: scrSetting, arg: int16(i)},
			style: style{divider: true}})
		row.add(&element{class: clsImage, id: "android:id/icon", kind: kBadge, glyph: s.name[:1],
			box:   image.Rect(l.px(50), y+l.px(45), l.px(150), y+l.px(145)),
			style: style{bg: s.color, fg: white, size: l.px(48), bold: true}})
		row.add(b.text("android:id/title", s.name, image.Rect(l.px(200), y+l.px(28), l.w-l.px(40), y+l.px(105)), l.px(50), ink, false, alignLeft))
		row.add(b.text("android:id/summary", b.fill(summary), image.Rect(l.px(200), y+l.px(105), l.w-l.px(40), y+l.px(165)), l.px(38), grey, false, alignLeft))
	})
}

func (b *builder) setting(content *element, i int) {
	l := b.l
	s := &settingRows[i]
	pkg := apps[appSettings].pkg
	y := content.box.Min.Y
	page := content.add(&element{class: clsLinear, id: pkg + ":id/details", box: content.box})
	if s.bit >= 0 {
		on := b.st.flags&(1<<s.bit) != 0
		h := l.px(200)
		row := page.add(&element{class: clsLinear, id: pkg + ":id/switch_bar", desc: s.switchText, clickable: true,
			box: image.Rect(0, y, l.w, y+h), act: action{op: actToggle, arg: int16(s.bit)},
			style: style{bg: rgb(0xe8eaf6), divider: true}})
		row.add(b.text("android:id/title", s.switchText, image.Rect(l.px(60), y, l.w-l.px(240), y+h), l.px(52), ink, true, alignLeft))
		text := "OFF"
		if on {
			text = "ON"
		}
		row.add(&element{class: clsSwitch, id: "android:id/switch_widget", text: text, checkable: true, checked: on,
			kind: kSwitch, box: image.Rect(l.w-l.px(210), y+l.px(65), l.w-l.px(60), y+l.px(135)),
			style: style{bg: s.color}})
		y += h
	}
	for _, d := range s.details {
		h := l.px(180)
		row := page.add(&element{class: clsLinear, box: image.Rect(0, y, l.w, y+h), style: style{divider: true}})
		row.add(b.text("android:id/title", d[0], image.Rect(l.px(60), y+l.px(25), l.w-l.px(40), y+l.px(100)), l.px(46), ink, false, alignLeft))
		row.add(b.text("android:id/summary", b.fill(d[1]), image.Rect(l.px(60), y+l.px(100), l.w-l.px(40), y+l.px(160)), l.px(40), grey, false, alignLeft))
		y += h
	}
}

// shopItems is how many items the Shop lists.
const shopItems = 60

func itemName(n int) string { return "Item " + itoa(n) }

// itemPrice is a made-up but stable price.
func itemPrice(n int) string { return fmt.Sprintf("$%d.99", (n*37)%90+5) }

// itemColor gives each item's picture a colour of its own.
func itemColor(n int) color.RGBA {
	palette := [...]uint32{0xef5350, 0xab47bc, 0x5c6bc0, 0x29b6f6, 0x26a69a, 0x9ccc65, 0xffca28, 0xff7043}
	return rgb(palette[n%len(palette)])
}

func (b *builder) shop(content *element) {
	l := b.l
	pkg := apps[appShop].pkg
	rowH := l.px(160)
	b.list(content, pkg+":id/list", shopItems, rowH, func(list *element, i, y int) {
		n := i + 1
		row := list.add(&element{class: clsLinear, id: pkg + ":id/item", desc: itemName(n), clickable: true,
			box: image.Rect(0, y, l.w, y+rowH), act: action{op: actOpen, scr: scrShopItem, arg: int16(n)},
			style: style{bg: white, divider: true}})
		row.add(&element{class: clsImage, id: pkg + ":id/thumb", box: image.Rect(l.px(40), y+l.px(20), l.px(160), y+l.px(140)),
			style: style{bg: itemColor(n), radius: l.px(20)}})
		row.add(b.text(pkg+":id/name", itemName(n), image.Rect(l.px(200), y, l.w-l.px(300), y+rowH), l.px(50), ink, false, alignLeft))
		row.add(b.text(pkg+":id/price", itemPrice(n), image.Rect(l.w-l.px(300), y, l.w-l.px(40), y+rowH), l.px(48), rgb(0x188038), true, alignRight))
	})
}

func (b *builder) shopItem(content *element, n int) {
	l := b.l
	pkg := apps[appShop].pkg
	y := content.box.Min.Y + l.px(40)
	content.add(&element{class: clsImage, id: pkg + ":id/image", desc: itemName(n),
		box: image.Rect(l.px(60), y, l.w-l.px(60), y+l.px(600)), style: style{bg: itemColor(n), radius: l.px(40)}})
	y += l.px(640)
	content.add(b.text(pkg+":id/name", itemName(n), image.Rect(l.px(60), y, l.w-l.px(60), y+l.px(110)), l.px(72), ink, true, alignLeft))
	y += l.px(110)
	content.add(b.text(pkg+":id/price", itemPrice(n), image.Rect(l.px(60), y, l.w-l.px(60), y+l.px(100)), l.px(64), rgb(0x188038), true, alignLeft))
	y += l.px(100)
	content.add(b.text(pkg+":id/description", "A fine simulated item. Ships today.", image.Rect(l.px(60), y, l.w-l.px(60), y+l.px(80)), l.px(44), grey, false, alignLeft))
	y += l.px(140)
	content.add(&element{class: clsButton, id: pkg + ":id/add_to_cart", text: "Add to cart", desc: "Add to cart", clickable: true,
		box: image.Rect(l.px(60), y, l.w-l.px(60), y+l.px(160)), act: action{op: actCart, arg: int16(n)},
		style: style{bg: apps[appShop].color, fg: white, size: l.px(52), bold: true, align: alignCenter, radius: l.px(80)}})
}

func (b *builder) notes(content *element) {
	l := b.l
	pkg := apps[appNotes].pkg
	y := content.box.Min.Y + l.px(40)
	content.add(&element{class: clsEdit, id: pkg + ":id/note", text: b.st.note, hint: "Type a note", clickable: true, focused: true,
		kind: kField, box: image.Rect(l.px(40), y, l.w-l.px(40), y+l.px(1000)),
		style: style{bg: white, fg: ink, size: l.px(48), radius: l.px(24)}})
	if b.st.paste { // Android's floating text toolbar, over the field's top-left corner
		content.add(&element{class: clsButton, id: "android:id/paste", text: "Paste", desc: "Paste", clickable: true,
			box: image.Rect(l.px(60), y+l.px(40), l.px(400), y+l.px(180)), act: action{op: actPaste},
			style: style{bg: rgb(0x303134), fg: white, size: l.px(48), bold: true, align: alignCenter, radius: l.px(24)}})
	}
	y += l.px(1020)
	n := utf8.RuneCountInString(b.st.note)
	content.add(b.text(pkg+":id/count", itoa(n)+" characters", image.Rect(l.px(60), y, l.w-l.px(60), y+l.px(80)), l.px(40), grey, false, alignLeft))
}
