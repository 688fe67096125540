package wdasim

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/corral-farm/corral/nodes/uitree"
)

// source answers GET /source?format=xml: the phone's UI as XCUITest XML in points.
func (s *Server) source(c *call) (any, error) {
	if f := c.r.URL.Query().Get("format"); f != "" && f != "xml" {
		return nil, errInvalidArgument("format " + strconv.Quote(clipText(f)) + " is not supported by the simulated phone; use xml")
	}
	front, err := s.phone.ForegroundApp(c.ctx)
	if err != nil {
		return nil, err
	}
	sz, err := s.screenSize(c.ctx)
	if err != nil {
		return nil, err
	}
	var els []uitree.Element
	if !s.isScreenOff() { // a dark screen shows nothing
		dump, err := s.phone.Source(c.ctx)
		if err != nil {
			return nil, err
		}
		if els, err = uitree.Parse(dump); err != nil {
			return nil, errUnknown("the phone's UI dump: " + err.Error())
		}
	}
	return s.xcuiXML(front, sz.Width, sz.Height, els), nil
}

// node is an element of the converted tree.
type node struct {
	el       uitree.Element
	children []int
}

// xcuiXML writes the tree as XCUITest does: an XCUIElementTypeApplication for the app in front,
// holding a Window (the phone's root view) and the views under it.
func (s *Server) xcuiXML(bundle string, w, h int, els []uitree.Element) string {
	// Rebuild the tree from the dump's depths: parents come before their children.
	nodes := make([]node, len(els))
	var roots, stack []int
	for i, e := range els {
		nodes[i].el = e
		for len(stack) > 0 && els[stack[len(stack)-1]].Depth >= e.Depth {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, i)
		} else {
			p := stack[len(stack)-1]
			nodes[p].children = append(nodes[p].children, i)
		}
		stack = append(stack, i)
	}
	var sb strings.Builder
	sb.Grow(256 * (len(els) + 1))
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	const app = "XCUIElementTypeApplication"
	pw, ph := w/s.scale, h/s.scale
	openTag(&sb, app, attrs{name: bundle, label: bundle, enabled: true, visible: true, w: pw, h: ph})
	for i, r := range roots {
		s.writeNode(&sb, nodes, r, i, "XCUIElementTypeWindow")
	}
	sb.WriteString("</" + app + ">\n")
	return sb.String()
}

type attrs struct {
	value, name, label           string
	enabled, visible, accessible bool
	x, y, w, h, index            int
}

func (s *Server) writeNode(sb *strings.Builder, nodes []node, i, index int, typ string) {
	n := nodes[i]
	e := n.el
	x, y, w, h := s.frame(e.Bounds)
	a := attrs{name: nameOf(e), label: labelOf(e, typ), value: valueOf(e, typ), enabled: e.Enabled,
		visible: !e.Bounds.Empty(), accessible: accessible(e, typ), x: x, y: y, w: w, h: h, index: index}
	openTag(sb, typ, a)
	for j, c := range n.children {
		s.writeNode(sb, nodes, c, j, xcuiType(nodes[c].el, typ))
	}
	sb.WriteString("</" + typ + ">")
}

func openTag(sb *strings.Builder, typ string, a attrs) {
	sb.WriteString("<" + typ)
	attr(sb, "type", typ)
	if a.value != "" {
		attr(sb, "value", a.value)
	}
	if a.name != "" {
		attr(sb, "name", a.name)
	}
	if a.label != "" {
		attr(sb, "label", a.label)
	}
	attr(sb, "enabled", strconv.FormatBool(a.enabled))
	attr(sb, "visible", strconv.FormatBool(a.visible))
	attr(sb, "accessible", strconv.FormatBool(a.accessible))
	for _, kv := range [...]struct {
		k string
		v int
	}{{"x", a.x}, {"y", a.y}, {"width", a.w}, {"height", a.h}, {"index", a.index}} {
		attr(sb, kv.k, strconv.Itoa(kv.v))
	}
	sb.WriteString(">")
}

// attr writes name="value", escaped; characters XML cannot hold become U+FFFD.
func attr(sb *strings.Builder, name, value string) {
	sb.WriteString(" " + name + `="`)
	_ = xml.EscapeText(sb, []byte(value)) // a strings.Builder never fails
	sb.WriteString(`"`)
}

// xcuiType maps an Android view to the XCUIElementType iOS would use for it; the direct
// children of a list are its cells.
func xcuiType(e uitree.Element, parent string) string {
	if parent == "XCUIElementTypeTable" || parent == "XCUIElementTypeCollectionView" {
		return "XCUIElementTypeCell"
	}
	switch e.Kind() {
	case uitree.KindButton, uitree.KindRadio:
		return "XCUIElementTypeButton"
	case uitree.KindText:
		return "XCUIElementTypeStaticText"
	case uitree.KindInput:
		if e.Password {
			return "XCUIElementTypeSecureTextField"
		}
		return "XCUIElementTypeTextField"
	case uitree.KindImage:
		return "XCUIElementTypeImage"
	case uitree.KindSwitch, uitree.KindCheckbox:
		return "XCUIElementTypeSwitch"
	case uitree.KindSlider:
		return "XCUIElementTypeSlider"
	case uitree.KindProgress:
		return "XCUIElementTypeProgressIndicator"
	case uitree.KindWeb:
		return "XCUIElementTypeWebView"
	case uitree.KindTabs:
		return "XCUIElementTypeTabBar"
	case uitree.KindList:
		switch {
		case strings.HasSuffix(e.Class, "GridView"):
			return "XCUIElementTypeCollectionView"
		case strings.HasSuffix(e.Class, "ScrollView"):
			return "XCUIElementTypeScrollView"
		}
		return "XCUIElementTypeTable"
	}
	return "XCUIElementTypeOther"
}

// nameOf is the accessibility identifier: the resource id without its package, else the label.
func nameOf(e uitree.Element) string {
	if _, id, ok := strings.Cut(e.ResourceID, ":id/"); ok && id != "" {
		return id
	}
	if e.ResourceID != "" {
		return e.ResourceID
	}
	return e.Label()
}

// labelOf is what VoiceOver reads: a field's description (its text is its value), else the
// text or description.
func labelOf(e uitree.Element, typ string) string {
	if isField(typ) || typ == "XCUIElementTypeSwitch" {
		return strings.Join(strings.Fields(e.ContentDesc), " ")
	}
	return e.Label()
}

// valueOf is a field's text (the phone masks a password's), a switch's state ("1" on), a static
// text's text.
func valueOf(e uitree.Element, typ string) string {
	switch {
	case isField(typ), typ == "XCUIElementTypeStaticText":
		return e.Text
	case typ == "XCUIElementTypeSwitch":
		if e.Checked {
			return "1"
		}
		return "0"
	}
	return ""
}

func isField(typ string) bool {
	return typ == "XCUIElementTypeTextField" || typ == "XCUIElementTypeSecureTextField"
}

// accessible says whether VoiceOver stops at the element: controls, texts and labelled images,
// not the layouts around them.
func accessible(e uitree.Element, typ string) bool {
	switch typ {
	case "XCUIElementTypeOther", "XCUIElementTypeWindow", "XCUIElementTypeTable",
		"XCUIElementTypeCollectionView", "XCUIElementTypeScrollView":
		return false
	case "XCUIElementTypeImage":
		return e.Label() != ""
	}
	return true
}
