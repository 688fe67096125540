package sim

import (
	"context"
	"encoding/xml"
	"image"
	"strconv"
	"strings"
)

// Source returns the UI hierarchy in the format of `uiautomator dump`: one <node> per element
// with its class, text, resource-id, content-desc, flags and bounds="[left,top][right,bottom]".
// The bounds are the visible pixels of the element in Screenshot, and a tap at any point inside
// a clickable node's bounds reaches that node (or a clickable node drawn over it).
func (p *Phone) Source(ctx context.Context) (string, error) {
	defer p.track()()
	if err := p.begin(ctx, "source"); err != nil {
		return "", err
	}
	p.mu.Lock()
	root := p.tree()
	p.mu.Unlock()
	if p.noTree.Load() {
		root = &element{class: clsSurface, pkg: root.pkg, box: root.box, bounds: root.bounds}
	}
	var sb strings.Builder
	sb.Grow(16 << 10)
	sb.WriteString(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">`)
	writeNode(&sb, root, 0)
	sb.WriteString(`</hierarchy>`)
	return sb.String(), nil
}

// HideTree hides the phone's UI tree, or shows it again: while hidden, Source dumps one
// full-screen SurfaceView with no text, as a game, a Flutter canvas or a camera view does, while
// the screen and taps stay as they are. The tools then read the screen with vision.
func (p *Phone) HideTree(hidden bool) { p.noTree.Store(hidden) }

func writeNode(sb *strings.Builder, e *element, index int) {
	sb.WriteString(`<node index="`)
	sb.WriteString(strconv.Itoa(index))
	sb.WriteByte('"')
	attr(sb, "text", e.text)
	attr(sb, "resource-id", e.id)
	attr(sb, "class", e.class)
	attr(sb, "package", e.pkg)
	attr(sb, "content-desc", e.desc)
	flag(sb, "checkable", e.checkable)
	flag(sb, "checked", e.checked)
	flag(sb, "clickable", e.clickable)
	flag(sb, "enabled", true)
	flag(sb, "focusable", e.clickable || e.focused)
	flag(sb, "focused", e.focused)
	flag(sb, "scrollable", e.scrollable)
	flag(sb, "long-clickable", false)
	flag(sb, "password", e.password)
	flag(sb, "selected", false)
	sb.WriteString(` bounds="`)
	sb.WriteString(boundsString(e.bounds))
	sb.WriteByte('"')
	if len(e.children) == 0 {
		sb.WriteString(" />")
		return
	}
	sb.WriteByte('>')
	for i, c := range e.children {
		writeNode(sb, c, i)
	}
	sb.WriteString("</node>")
}

// attr writes name="value", escaping the value; characters XML cannot hold become U+FFFD.
func attr(sb *strings.Builder, name, value string) {
	sb.WriteByte(' ')
	sb.WriteString(name)
	sb.WriteString(`="`)
	_ = xml.EscapeText(sb, []byte(value)) // a strings.Builder never fails
	sb.WriteByte('"')
}

func flag(sb *strings.Builder, name string, v bool) {
	sb.WriteByte(' ')
	sb.WriteString(name)
	sb.WriteString(`="`)
	sb.WriteString(strconv.FormatBool(v))
	sb.WriteByte('"')
}

// boundsString formats r as uiautomator does: [left,top][right,bottom], right and bottom
// exclusive.
func boundsString(r image.Rectangle) string {
	return "[" + strconv.Itoa(r.Min.X) + "," + strconv.Itoa(r.Min.Y) + "][" +
		strconv.Itoa(r.Max.X) + "," + strconv.Itoa(r.Max.Y) + "]"
}
