package sim

import (
	"image"
	"image/color"
	"strings"
)

// Default buttons of a popup shown without any.
var defaultButtons = []string{"Not now", "OK"}

// ShowPopup opens a modal dialog over whatever the phone shows, as an app's "Rate us?" or
// "Allow notifications?" prompt would: a title and 1 to 3 buttons, left to right ("Not now" and
// "OK" when none are given; extra ones are dropped). Any of its buttons closes it, as do BACK
// and HOME; while it is open, touches outside it do nothing and text goes nowhere. On a locked
// phone it waits behind the lock screen. Its UI source is Android's AlertDialog's:
// android:id/parentPanel, alertTitle, and button1 (the rightmost) to button3.
//
// It is a test hook, not a device operation: it never blocks or fails.
func (p *Phone) ShowPopup(title string, buttons ...string) {
	var bs []string
	for _, b := range buttons {
		if b = strings.TrimSpace(b); b != "" && len(bs) < maxButtons {
			bs = append(bs, b)
		}
	}
	if len(bs) == 0 {
		bs = defaultButtons
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.popup = &dialog{title: title, buttons: bs}
}

// Popup returns the open popup's title, and whether one is open.
func (p *Phone) Popup() (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.st.popup == nil {
		return "", false
	}
	return p.st.popup.title, true
}

// touchRoot is where a touch lands: the open popup's scrim, which takes every touch, or the
// whole tree. Callers hold p.mu.
func (p *Phone) touchRoot() *element {
	root := p.tree()
	for _, c := range root.children {
		if c.modal {
			return c
		}
	}
	return root
}

var (
	scrim        = color.RGBA{A: 0x99} // translucent black over the page
	dialogAccent = rgb(0x1a73e8)
)

// popup draws the dialog d over root: a scrim over the whole screen and a card in its middle
// with the title and a row of buttons.
func (b *builder) popup(root *element, d *dialog) {
	l := b.l
	s := root.add(&element{class: clsFrame, id: "android:id/content", modal: true,
		box: image.Rect(0, 0, l.w, l.h), style: style{bg: scrim}})
	top := l.h/2 - l.px(260)
	card := s.add(&element{class: clsLinear, id: "android:id/parentPanel",
		box:   image.Rect(l.px(80), top, l.w-l.px(80), top+l.px(520)),
		style: style{bg: white, radius: l.px(40)}})
	in := card.box.Inset(l.px(60))
	card.add(b.text("android:id/alertTitle", d.title, image.Rect(in.Min.X, in.Min.Y, in.Max.X, in.Min.Y+l.px(200)),
		l.px(52), ink, true, alignLeft))
	row := card.add(&element{class: clsLinear, id: "android:id/buttonPanel",
		box: image.Rect(in.Min.X, in.Max.Y-l.px(140), in.Max.X, in.Max.Y)})
	n := len(d.buttons)
	w := row.box.Dx() / n
	for i, label := range d.buttons {
		x := row.box.Min.X + i*w
		row.add(&element{class: clsButton, id: "android:id/button" + itoa(n-i), text: label, clickable: true,
			box: image.Rect(x, row.box.Min.Y, x+w, row.box.Max.Y), act: action{op: actDismiss},
			style: style{fg: dialogAccent, size: l.px(44), bold: true, align: alignCenter}})
	}
}
