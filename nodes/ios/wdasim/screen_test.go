package wdasim_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"strings"
	"testing"
)

func TestWindowAndScreen(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	if v := string(r.ok("GET", s+"/window/size", nil).Value); v != `{"height":667,"width":375}` {
		t.Errorf("window size = %s", v)
	}
	var scr struct {
		ScreenSize    struct{ Width, Height float64 } `json:"screenSize"`
		StatusBarSize struct{ Width, Height float64 } `json:"statusBarSize"`
		Scale         float64                         `json:"scale"`
	}
	for _, p := range []string{"/wda/screen", s + "/wda/screen"} {
		if err := json.Unmarshal(r.ok("GET", p, nil).Value, &scr); err != nil {
			t.Fatal(err)
		}
		// The phone's status bar is 55 pixels tall.
		if scr.Scale != 2 || scr.ScreenSize.Width != 375 || scr.ScreenSize.Height != 667 || scr.StatusBarSize.Width != 375 || scr.StatusBarSize.Height != 27.5 {
			t.Errorf("%s = %+v", p, scr)
		}
	}
}

// The screenshot is base64 in 64-column lines, as WebDriverAgent sends it, of a PNG of the
// phone's pixels.
func TestScreenshot(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	for _, p := range []string{"/screenshot", "/session/" + r.session() + "/screenshot"} {
		v := str(t, r.ok("GET", p, nil).Value)
		lines := strings.Split(v, "\r\n")
		if len(lines) < 100 {
			t.Fatalf("%s: %d lines of base64; want lines of 64 characters", p, len(lines))
		}
		for i, l := range lines[:len(lines)-1] {
			if len(l) != 64 {
				t.Fatalf("%s: line %d has %d characters, want 64", p, i, len(l))
			}
		}
		b, err := base64.StdEncoding.DecodeString(strings.Join(lines, ""))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil || cfg.Width != 750 || cfg.Height != 1334 {
			t.Errorf("%s: %dx%d, %v; want a 750x1334 PNG", p, cfg.Width, cfg.Height, err)
		}
	}
}

// /wda/lock darkens the screen until /wda/unlock or the home button; a dark screen takes no
// touches and shows no keyboard.
func TestLock(t *testing.T) {
	r := newRig(t, 320, 480, 1)
	s := "/session/" + r.session()
	r.ok("POST", "/wda/lock", nil)
	if v := string(r.ok("GET", "/wda/locked", nil).Value); v != "true" {
		t.Fatalf("locked = %s after lock", v)
	}
	if black := blackShare(t, r); black != 1 {
		t.Errorf("%.3f of a dark screen is black", black)
	}
	n := len(r.phone.InputLog())
	r.ok("POST", s+"/wda/tap", map[string]any{"x": 10, "y": 10})
	r.fails("POST", s+"/wda/keys", map[string]any{"value": []string{"1"}}, 400, "invalid element state")
	if len(r.phone.InputLog()) != n {
		t.Errorf("a dark screen passed input on: %q", r.lastInput())
	}
	if src := str(t, r.ok("GET", "/source", nil).Value); strings.Contains(src, "XCUIElementTypeCell") {
		t.Errorf("a dark screen has a UI: %s", src)
	}
	r.ok("POST", s+"/wda/unlock", nil)
	if v := string(r.ok("GET", s+"/wda/locked", nil).Value); v != "false" {
		t.Errorf("locked = %s after unlock", v)
	}
	if black := blackShare(t, r); black > 0.5 {
		t.Errorf("%.3f of the unlocked screen is black", black)
	}
	r.ok("POST", s+"/wda/lock", nil)
	r.ok("POST", "/wda/homescreen", nil)
	if v := string(r.ok("GET", "/wda/locked", nil).Value); v != "false" {
		t.Errorf("locked = %s after the home screen", v)
	}
}

func blackShare(t *testing.T, r *rig) float64 {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(str(t, r.ok("GET", "/screenshot", nil).Value), "\r\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	rect, black := img.Bounds(), 0
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r|g|b == 0 {
				black++
			}
		}
	}
	return float64(black) / float64(rect.Dx()*rect.Dy())
}

// A phone on its PIN lock screen stays locked when woken: unlock fails as WebDriverAgent's does
// for an iPhone with a passcode, and the passcode typed unlocks it.
func TestPasscode(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	r.ok("POST", s+"/wda/pressButton", map[string]any{"name": "home"})
	if err := r.phone.PressKey(t.Context(), "POWER"); err != nil { // the phone's own lock
		t.Fatal(err)
	}
	if v := string(r.ok("GET", "/wda/locked", nil).Value); v != "true" {
		t.Errorf("locked = %s on the lock screen", v)
	}
	a := r.fails("POST", "/wda/unlock", nil, 500, "unknown error")
	if !strings.Contains(string(a.Value), "passcode") {
		t.Errorf("unlock: %s; want it to say the passcode is needed", a.Value)
	}
	r.fails("POST", "/wda/homescreen", nil, 500, "unknown error")
	r.ok("POST", s+"/wda/keys", map[string]any{"value": []string{"1", "\b"}}) // the PIN pad takes DEL
	r.ok("POST", s+"/wda/keys", map[string]any{"value": []string{r.phone.Passcode()}})
	if v := string(r.ok("GET", "/wda/locked", nil).Value); v != "false" {
		t.Errorf("locked = %s after the passcode", v)
	}
	// The pad took the last digit as the whole code, as an iPhone's does: no keyboard is left
	// for a return.
	r.fails("POST", s+"/wda/keys", map[string]any{"value": []string{"\n"}}, 400, "invalid element state")
	r.ok("POST", "/wda/unlock", nil)
}
