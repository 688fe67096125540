package android

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/device"
)

// FuzzParsers throws arbitrary device answers at every output parser: none panics, and what
// they accept is sane.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{
		"Physical size: 1080x2400\nOverride size: 720x1600\n",
		"Physical density: 420\nOverride density: 320\n",
		"      SurfaceOrientation: 1\n",
		"      InputDeviceOrientation: Rotation270\n",
		"package:com.a\npackage:com.b\n",
		"Failure [INSTALL_FAILED_INVALID_APK]\n",
		"Success\n",
		"Events injected: 1\n",
		"  mCurrentFocus=Window{1a2b3c u0 com.a/.B}\n",
		"Input method x/.Y selected for user #0\n",
		"  level: 87\n  status: 2\n  AC powered: false\n",
		"Broadcast completed: result=-1, data=\"Text is copied into clipboard.\"\n",
		"<?xml version='1.0'?><hierarchy rotation=\"0\"></hierarchy>UI hierchary dumped to: /dev/tty\n",
		"a\tdevice\nb\toffline\n",
		"mCurrentFocus=Window{",
		"Failure [",
		"Broadcast completed: result=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		if s, err := parseWMSize(out); err == nil && (s.Width <= 0 || s.Height <= 0) {
			t.Errorf("parseWMSize accepted %v", s)
		}
		if n, err := parseWMDensity(out); err == nil && n <= 0 {
			t.Errorf("parseWMDensity accepted %d", n)
		}
		if r, _, err := parseOrientation(out); err == nil && (r < 0 || r > 3) {
			t.Errorf("parseOrientation accepted %d", r)
		}
		for _, p := range parsePackages(out) {
			if p == "" || strings.ContainsAny(p, "\r\n") {
				t.Errorf("parsePackages gave %q", p)
			}
		}
		_ = parsePMResult(out)
		_ = parseMonkey(out)
		_ = parseIME(out)
		if pkg, err := parseFocus(out); err == nil && !validPackage(pkg) {
			t.Errorf("parseFocus gave %q", pkg)
		}
		_ = parseBattery(out)
		_, _, _ = parseBroadcast(out)
		if xml, err := stripUIDump(out); err == nil && !strings.HasSuffix(xml, ">") {
			t.Errorf("stripUIDump gave %q", xml)
		}
		for serial := range parseDeviceList(out) {
			if serial == "" {
				t.Error("parseDeviceList gave an empty serial")
			}
		}
		_, _ = keyCode(out)
		_ = quoteOutput(out)
	})
}

// FuzzTextCommands checks the text commands for any text: `input text` only with printable
// ASCII inside single quotes, everything else base64, and the pieces add up to the text.
func FuzzTextCommands(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		cmds, broadcast := textCommands(text)
		var typed strings.Builder
		for _, c := range cmds {
			if broadcast {
				b64, ok := strings.CutPrefix(c, "am broadcast -a ADB_INPUT_B64 --es msg ")
				raw, err := base64.StdEncoding.DecodeString(b64)
				if !ok || err != nil {
					t.Fatalf("command %q", c)
				}
				typed.Write(raw)
				continue
			}
			arg, ok := strings.CutPrefix(c, "input text '")
			if !ok || !strings.HasSuffix(arg, "'") {
				t.Fatalf("command %q is not single-quoted", c)
			}
			unq := strings.ReplaceAll(strings.TrimSuffix(arg, "'"), `'\''`, "'")
			if strings.Contains(strings.ReplaceAll(strings.TrimSuffix(arg, "'"), `'\''`, ""), "'") {
				t.Fatalf("command %q has a stray quote", c)
			}
			typed.WriteString(androidInputText(unq))
		}
		if typed.String() != text {
			t.Fatalf("commands %q type %q, not %q", cmds, typed.String(), text)
		}
		if utf8.ValidString(text) && len(text) > maxTextChunk && len(cmds) < 2 {
			t.Fatalf("%d bytes in one command", len(text))
		}
	})
}

// FuzzGetevent throws arbitrary `getevent -lp` answers at the parser and the touchscreen's
// choice: nothing panics, a chosen panel has real ranges, and every pixel of a display maps
// inside them.
func FuzzGetevent(f *testing.F) {
	f.Add(geteventLabelled)
	f.Add(geteventHex)
	f.Add("add device 1: /dev/input/event1\n  events:\n    ABS (0003): 0035  : value 0, min -5, max -1\n                0036 : min 7 max 8\n")
	f.Add("add device 1: x\n    KEY (0001):\n    ABS (0003): ABS_MT_SLOT : max\n  input props:\n    <none>\n")
	f.Fuzz(func(t *testing.T, out string) {
		devs, _ := parseGetevent(out)
		for _, d := range devs {
			for code, r := range d.abs {
				if r.min >= r.max {
					t.Fatalf("axis %#x has the range %v", code, r)
				}
			}
		}
		p, err := findTouchscreen(devs)
		if err != nil {
			return
		}
		for rot := range 4 {
			g := geometry{size: device.Size{Width: 1080, Height: 2400}, rotation: rot}
			for _, pt := range []device.Point{{}, {X: 1079, Y: 2399}, {X: 540, Y: 1}} {
				at, err := p.toPanel(pt, g)
				if err != nil || at.x < p.x.min || at.x > p.x.max || at.y < p.y.min || at.y > p.y.max {
					t.Fatalf("%v at rotation %d maps to %v on %v, %v", pt, rot, at, p, err)
				}
			}
		}
		f := &finger{t: &touchscreen{panel: p}}
		for range 3 {
			if id := f.t.nextID(); id < p.tracking.min || id > p.tracking.max || id < 0 && p.tracking.max >= 0 {
				t.Fatalf("tracking id %d outside %v", id, p.tracking)
			}
		}
	})
}
