package ios

import (
	"image"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/uitree"
)

const xcuiSample = `<?xml version="1.0" encoding="UTF-8"?>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Settings" label="Settings" enabled="true" visible="true" accessible="false" x="0" y="0" width="375" height="667" index="0">
  <XCUIElementTypeButton type="XCUIElementTypeButton" name="wifi" label="Wi-Fi &amp; more" enabled="true" visible="true" accessible="true" x="10.5" y="100" width="100" height="44" index="0"/>
  <XCUIElementTypeTextField type="XCUIElementTypeTextField" name="search" label="Search" value="cats" enabled="true" visible="true" accessible="true" x="0" y="50" width="375" height="36" index="1"/>
  <XCUIElementTypeSecureTextField type="XCUIElementTypeSecureTextField" name="pin" label="PIN" value="••••" enabled="true" visible="true" accessible="true" x="0" y="200" width="375" height="36" index="2"/>
  <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" name="bt" label="Bluetooth" value="1" enabled="false" visible="true" accessible="true" x="300" y="300" width="51" height="31" index="3"/>
  <XCUIElementTypeTable type="XCUIElementTypeTable" name="" label="" enabled="true" visible="true" accessible="false" x="0" y="400" width="375" height="267" index="4">
    <XCUIElementTypeCell type="XCUIElementTypeCell" name="row" label="" enabled="true" visible="false" accessible="false" x="0" y="700" width="375" height="44" index="0">
      <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="hidden" label="Off screen" enabled="true" visible="true" accessible="true" x="0" y="700" width="375" height="44" index="0"/>
    </XCUIElementTypeCell>
  </XCUIElementTypeTable>
</XCUIElementTypeApplication>`

// The XCUITest tree becomes a uiautomator tree that uitree reads, in pixels at the scale.
func TestConvertSource(t *testing.T) {
	out, err := convertSource(xcuiSample, 2)
	if err != nil {
		t.Fatal(err)
	}
	els, err := uitree.Parse(out)
	if err != nil {
		t.Fatalf("uitree does not read the converted source: %v\n%s", err, out)
	}
	by := map[string]uitree.Element{}
	for _, e := range els {
		by[e.ResourceID] = e
	}
	if len(els) != 6 {
		t.Fatalf("want 6 elements (the invisible cell and its text left out), got %d:\n%s", len(els), out)
	}
	wifi := by["wifi"]
	if wifi.Class != "XCUIElementTypeButton" || wifi.Text != "Wi-Fi & more" || !wifi.Clickable || wifi.Bounds != image.Rect(21, 200, 221, 288) {
		t.Errorf("button: %+v", wifi)
	}
	if s := by["search"]; s.Text != "cats" || s.ContentDesc != "Search" || !s.Clickable {
		t.Errorf("text field: %+v", s)
	}
	if p := by["pin"]; !p.Password || p.Text != "" {
		t.Errorf("a secure field shows its text or is not a password: %+v", p)
	}
	if b := by["bt"]; !b.Checkable || !b.Checked || b.Enabled {
		t.Errorf("switch: %+v", b)
	}
	if by["hidden"].Class != "" || strings.Contains(out, "Off screen") {
		t.Errorf("an invisible element's subtree is listed:\n%s", out)
	}
	if tbl := els[5]; !tbl.Scrollable || tbl.Depth != 1 {
		t.Errorf("table: %+v", tbl)
	}
}

func TestConvertSourceRefusesMalformed(t *testing.T) {
	for name, src := range map[string]string{
		"empty":     "",
		"not xml":   "<<<",
		"truncated": `<XCUIElementTypeApplication x="0"><XCUIElementTypeButton>`,
		"too deep":  strings.Repeat("<a>", maxSourceDepth+1) + strings.Repeat("</a>", maxSourceDepth+1),
	} {
		if out, err := convertSource(src, 2); err == nil {
			t.Errorf("%s: no error, got %q", name, out)
		}
	}
}

func FuzzConvertSource(f *testing.F) {
	f.Add(xcuiSample, 2.0)
	f.Add(`<a x="NaN" y="1e308" width="-5" height="Inf"/>`, 3.0)
	f.Add(`<a visible="false"><b/></a><c/>`, 1.0)
	f.Fuzz(func(t *testing.T, src string, scale float64) {
		if scale <= 0 || scale > 10 {
			return
		}
		out, err := convertSource(src, scale)
		if err != nil {
			return
		}
		if _, err := uitree.Parse(out); err != nil {
			t.Fatalf("converted source does not parse: %v\n%q\n→ %q", err, src, out)
		}
	})
}
