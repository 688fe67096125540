package web

import (
	"context"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/chromedp/chromedp"
)

// sourceJS lists the page's elements worth showing, in document order, in one evaluation:
// those with text of their own, a label, a role that takes a tap, or a dialog's, and a box in
// the viewport or near it, each with the index of its nearest listed ancestor (-1: none).
// Boxes are CSS pixels of the layout viewport; "near" and vv are of the visual viewport, the
// screen (viewport.go), read in the same evaluation.
const sourceJS = `(() => {
  const tappable = new Set(["A", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "SUMMARY", "LABEL", "OPTION"]);
  const v = window.visualViewport || {scale: 1, offsetLeft: 0, offsetTop: 0, width: innerWidth, height: innerHeight};
  const vx = v.offsetLeft, vy = v.offsetTop, vw = v.width, vh = v.height;
  const out = [], index = new Map();
  const parentOf = el => { for (let p = el.parentElement; p; p = p.parentElement) if (index.has(p)) return index.get(p); return -1; };
  for (const el of document.body ? document.body.querySelectorAll("*") : []) {
    if (out.length >= 5000) break;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.bottom < vy - vh || r.top > vy + 2 * vh || r.right < vx || r.left > vx + vw) continue;
    let own = "";
    for (const n of el.childNodes) if (n.nodeType === 3) own += n.textContent;
    own = own.replace(/\s+/g, " ").trim();
    const role = el.getAttribute("role") || "";
    const click = tappable.has(el.tagName) || el.onclick != null || /^(button|link|tab|menuitem|checkbox|switch)$/.test(role);
    const label = el.getAttribute("aria-label") || el.getAttribute("alt") || el.getAttribute("placeholder") || el.getAttribute("title") || "";
    const box = /^(dialog|alertdialog)$/.test(role) || el.tagName === "DIALOG" || el.getAttribute("aria-modal") === "true";
    if (!own && !label && !click && !box) continue;
    const s = getComputedStyle(el);
    if (s.visibility === "hidden" || s.display === "none" || s.opacity === "0") continue;
    const value = el.tagName === "INPUT" && el.type !== "password" ? el.value : "";
    index.set(el, out.length);
    out.push({tag: el.tagName.toLowerCase() + (box ? " dialog" : ""), id: el.id, text: (own || value).slice(0, 500), desc: label.slice(0, 500),
      click, focused: el === document.activeElement, password: el.type === "password", parent: parentOf(el),
      l: r.left, t: r.top, r: r.right, b: r.bottom});
  }
  return {host: location.host, url: location.href, vv: {scale: v.scale, left: vx, top: vy}, els: out};
})()`

type domElement struct {
	Tag, ID, Text, Desc      string
	Click, Focused, Password bool
	Parent                   int
	L, T, R, B               float64
}

type domSnapshot struct {
	Host, URL string
	VV        viewport
	Els       []domElement
}

// Source lists the front tab's elements as uiautomator XML (what get_source, peek and
// close_popups read), their bounds in pixels of the screenshot, zoomed and scrolled as it is.
func (d *Driver) Source(ctx context.Context) (string, error) {
	c, done, err := d.tab(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	var snap domSnapshot
	d.reached(stepRead)
	err = whileNavigating(c, func() (err error) {
		if err := chromedp.Do(c, untilStill(readStill)); err != nil { // one state for a peek's reads (still.go)
			return err
		}
		snap, err = answered(c, func(c context.Context) (domSnapshot, error) {
			return chromedp.Run(c, chromedp.Evaluate[domSnapshot](sourceJS))
		})
		return err
	})
	if err != nil && browserDied(c) {
		return "", d.diedUnder(ctx, c, "source", err, errDiedReading, ", then repeat the call")
	}
	if err != nil {
		return "", d.wrap("source", err, hintFor(err))
	}
	children := make([][]int, len(snap.Els)+1) // by parent index + 1: the roots under 0
	for i, e := range snap.Els {
		p := e.Parent + 1
		if p < 0 || p > i { // a parent must come before its child
			p = 0
		}
		children[p] = append(children[p], i)
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">`)
	var write func(i int)
	write = func(i int) {
		e := snap.Els[i]
		l, t := d.screen(snap.VV, e.L, e.T)
		r, bt := d.screen(snap.VV, e.R, e.B)
		fmt.Fprintf(&b, `<node index="%d" text="%s" resource-id="%s" class="%s" package="%s" content-desc="%s" clickable="%t" enabled="true" focused="%t" password="%t" bounds="[%d,%d][%d,%d]">`,
			i, esc(e.Text), esc(e.ID), esc(e.Tag), esc(snap.Host), esc(e.Desc), e.Click, e.Focused, e.Password,
			l, t, r, bt)
		for _, c := range children[i+1] {
			write(c)
		}
		b.WriteString(`</node>`)
	}
	for _, i := range children[0] {
		write(i)
	}
	b.WriteString(`</hierarchy>`)
	return b.String(), nil
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), `"`, "&quot;")
}
