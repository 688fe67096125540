package wdasim_test

import (
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

type xelement struct {
	typ   string
	attrs map[string]string
	depth int
}

func parseXML(t *testing.T, src string) []xelement {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(src))
	var out []xelement
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the source is not XML: %v\n%s", err, src)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			e := xelement{typ: tk.Name.Local, attrs: map[string]string{}, depth: depth}
			for _, a := range tk.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			if e.attrs["type"] != e.typ {
				t.Errorf("<%s> has type %q", e.typ, e.attrs["type"])
			}
			out = append(out, e)
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if len(out) == 0 || out[0].typ != "XCUIElementTypeApplication" || out[0].depth != 0 {
		t.Fatalf("the source's root is not an application:\n%s", src)
	}
	return out
}

func (r *rig) source() []xelement {
	r.t.Helper()
	return parseXML(r.t, str(r.t, r.ok("GET", "/source?format=xml", nil).Value))
}

func findX(t *testing.T, els []xelement, typ, k, v string) xelement {
	t.Helper()
	for _, e := range els {
		if e.typ == typ && e.attrs[k] == v {
			return e
		}
	}
	t.Fatalf("no %s with %s=%q", typ, k, v)
	return xelement{}
}

func TestSourceTypesAndPoints(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	els := r.source()
	app := els[0]
	if app.attrs["name"] != "com.corral.launcher" || app.attrs["width"] != "375" || app.attrs["height"] != "667" {
		t.Errorf("application = %v", app.attrs)
	}
	findX(t, els, "XCUIElementTypeWindow", "index", "0")
	findX(t, els, "XCUIElementTypeCollectionView", "name", "apps")
	notes := findX(t, els, "XCUIElementTypeCell", "label", "Notes")
	// Its pixels are [187,389][375,572]: inwards, points [94,195][187,286).
	if got := [4]string{notes.attrs["x"], notes.attrs["y"], notes.attrs["width"], notes.attrs["height"]}; got != [4]string{"94", "195", "93", "91"} {
		t.Errorf("Notes' frame = %v", got)
	}
	findX(t, els, "XCUIElementTypeStaticText", "value", "Monday, January 1")

	r.ok("POST", s+"/wda/apps/launch", map[string]any{"bundleId": "com.corral.notes"})
	r.ok("POST", s+"/wda/keys", map[string]any{"value": []string{`<"&'>`}})
	els = r.source()
	findX(t, els, "XCUIElementTypeTextField", "value", `<"&'>`)
	findX(t, els, "XCUIElementTypeButton", "label", "Clear")
	findX(t, els, "XCUIElementTypeButton", "label", "Navigate up")

	r.ok("POST", s+"/wda/apps/launch", map[string]any{"bundleId": "com.corral.shop"})
	els = r.source()
	table := findX(t, els, "XCUIElementTypeTable", "visible", "true")
	cells := 0
	for _, e := range els {
		if e.typ == "XCUIElementTypeCell" {
			cells++
			if e.depth != table.depth+1 {
				t.Errorf("cell %v is not a child of the table", e.attrs)
			}
		}
	}
	if cells < 3 {
		t.Errorf("%d cells in the shop's list", cells)
	}

	r.ok("POST", s+"/wda/apps/launch", map[string]any{"bundleId": "com.corral.settings"})
	row := findX(t, r.source(), "XCUIElementTypeCell", "label", "Wi-Fi")
	x, _ := strconv.ParseFloat(row.attrs["x"], 64)
	y, _ := strconv.ParseFloat(row.attrs["y"], 64)
	w, _ := strconv.ParseFloat(row.attrs["width"], 64)
	h, _ := strconv.ParseFloat(row.attrs["height"], 64)
	r.ok("POST", s+"/wda/tap", map[string]any{"x": x + w/2, "y": y + h/2})
	sw := findX(t, r.source(), "XCUIElementTypeSwitch", "name", "switch_widget")
	if sw.attrs["value"] != "1" && sw.attrs["value"] != "0" {
		t.Errorf("switch value = %q", sw.attrs["value"])
	}

	r.phone.HideTree(true)
	els = r.source()
	if len(els) != 2 || els[1].typ != "XCUIElementTypeWindow" { // a bare canvas, as a game shows
		t.Errorf("a hidden tree shows %d elements", len(els))
	}
	r.fails("GET", "/source?format=json", nil, 400, "invalid argument")
}

func TestSourceLockScreen(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	if err := r.phone.PressKey(t.Context(), "POWER"); err != nil {
		t.Fatal(err)
	}
	els := r.source()
	findX(t, els, "XCUIElementTypeSecureTextField", "name", "pinEntry")
	findX(t, els, "XCUIElementTypeButton", "label", "5")
}
