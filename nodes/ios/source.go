package ios

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Source is WebDriverAgent's XCUITest tree as uiautomator XML (what get_source, peek and
// close_popups read), bounds in pixels of the screenshot.
func (d *Driver) Source(ctx context.Context) (string, error) {
	s, err := d.screenInfo(ctx)
	if err != nil {
		return "", err
	}
	x, err := d.wda.Source(ctx)
	if err != nil {
		return "", d.wdaError("read the UI tree", err)
	}
	out, err := convertSource(x, s.scale)
	if err != nil {
		return "", d.errorf("read the UI tree", err, "WebDriverAgent's source is malformed: retry, or restart WebDriverAgent")
	}
	return out, nil
}

// Bounds on a source a device sends: real ones are a few hundred kilobytes.
const (
	maxSourceBytes = 16 << 20
	maxSourceDepth = 256
	maxSourceNodes = 20000
)

// Kinds of XCUITest elements that take a tap, scroll, or hide what is typed.
var (
	tappable = map[string]bool{"Button": true, "Cell": true, "Link": true, "Switch": true, "Slider": true, "TextField": true,
		"SecureTextField": true, "SearchField": true, "TextView": true, "Icon": true, "Key": true, "Tab": true, "MenuItem": true,
		"SegmentedControl": true, "PickerWheel": true, "Stepper": true, "Toggle": true}
	scrolling = map[string]bool{"ScrollView": true, "Table": true, "CollectionView": true, "WebView": true}
)

// convertSource turns an XCUITest XML tree (points) into uiautomator XML (pixels at scale).
// Elements WebDriverAgent marks invisible are left out with what they hold.
func convertSource(src string, scale float64) (string, error) {
	if len(src) > maxSourceBytes {
		return "", fmt.Errorf("UI tree too large: %d bytes, at most %d", len(src), maxSourceBytes)
	}
	dec := xml.NewDecoder(strings.NewReader(src))
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">`)
	depth, skip, nodes, roots := 0, 0, 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("UI tree is not well-formed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > maxSourceDepth {
				return "", fmt.Errorf("UI tree nested deeper than %d", maxSourceDepth)
			}
			if skip > 0 || attr(t, "visible") == "false" {
				skip++
				continue
			}
			if nodes++; nodes > maxSourceNodes {
				return "", fmt.Errorf("UI tree has more than %d elements", maxSourceNodes)
			}
			if depth == 1 {
				roots++
			}
			writeNode(&b, t, nodes-1, scale)
		case xml.EndElement:
			depth--
			if skip > 0 {
				skip--
				continue
			}
			b.WriteString("</node>")
		}
	}
	if roots == 0 {
		return "", errors.New("UI tree has no element")
	}
	b.WriteString("</hierarchy>")
	return b.String(), nil
}

// writeNode writes one element as a uiautomator <node>, left open.
func writeNode(b *strings.Builder, t xml.StartElement, index int, scale float64) {
	typ := t.Name.Local
	kind := strings.TrimPrefix(typ, "XCUIElementType")
	label, value, name := attr(t, "label"), attr(t, "value"), attr(t, "name")
	text := label
	if kind == "TextField" || kind == "SearchField" || kind == "TextView" || kind == "StaticText" && label == "" {
		text = value
	}
	if kind == "SecureTextField" {
		text = ""
	}
	num := func(k string) float64 {
		v, err := strconv.ParseFloat(attr(t, k), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
		return math.Max(-1e6, math.Min(1e6, v))
	}
	x, y, w, h := num("x"), num("y"), math.Max(0, num("width")), math.Max(0, num("height"))
	px := func(v float64) int { return int(math.Round(v * scale)) }
	switch_ := kind == "Switch" || kind == "Toggle"
	fmt.Fprintf(b, `<node index="%d" class="%s" text="%s" resource-id="%s" package="" content-desc="%s" checkable="%t" checked="%t" clickable="%t" enabled="%t" focusable="%t" focused="false" scrollable="%t" long-clickable="false" password="%t" selected="%t" bounds="[%d,%d][%d,%d]">`,
		index, esc(typ), esc(text), esc(name), esc(label), switch_, switch_ && value == "1", tappable[kind] || attr(t, "accessible") == "true" && kind != "StaticText",
		attr(t, "enabled") != "false", tappable[kind], scrolling[kind], kind == "SecureTextField", attr(t, "selected") == "true",
		px(x), px(y), px(x+w), px(y+h))
}

// attr is t's attribute named k, "" if none.
func attr(t xml.StartElement, k string) string {
	for _, a := range t.Attr {
		if a.Name.Local == k {
			return a.Value
		}
	}
	return ""
}

// esc escapes s for an attribute value (EscapeText escapes quotes, tabs and newlines too).
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
