package wdasim_test

import (
	"strings"
	"testing"
)

// Points reach the phone as pixels: the point times the scale, rounded down.
func TestTouchesInPixels(t *testing.T) {
	r := newRig(t, 1080, 1920, 3)
	s := "/session/" + r.session()
	for _, tc := range []struct {
		path string
		body any
		want string
	}{
		{"/wda/tap", map[string]any{"x": 100.5, "y": 200.2}, "tap 301 600 hold=0s"},
		{"/wda/tap/0", map[string]any{"x": 0, "y": 0}, "tap 0 0 hold=0s"}, // the older route
		{"/wda/doubleTap", map[string]any{"x": 10, "y": 20}, "doubletap 30 60"},
		{"/wda/touchAndHold", map[string]any{"x": 10, "y": 20, "duration": 1.5}, "tap 30 60 hold=1.5s"},
		{"/wda/dragfromtoforduration", map[string]any{"fromX": 180, "fromY": 500, "toX": 180, "toY": 100, "duration": 0.5},
			"swipe 540 1500 540 300 dur=0s hold=500ms"},
	} {
		r.ok("POST", s+tc.path, tc.body)
		if got := r.lastInput(); got != tc.want {
			t.Errorf("%s %v: the phone got %q, want %q", tc.path, tc.body, got, tc.want)
		}
	}
}

func TestBadTouches(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	n := len(r.phone.InputLog())
	for _, tc := range []struct {
		path   string
		body   any
		status int
		code   string
	}{
		{"/wda/tap", map[string]any{"x": 375, "y": 10}, 400, "invalid coordinates"}, // x is 0 to under 375
		{"/wda/tap", map[string]any{"x": -0.1, "y": 10}, 400, "invalid coordinates"},
		{"/wda/tap", map[string]any{"x": 1e300, "y": 10}, 400, "invalid coordinates"},
		{"/wda/tap", map[string]any{"y": 10}, 400, "invalid argument"},
		{"/wda/tap", map[string]any{"x": "10", "y": 10}, 400, "invalid argument"},
		{"/wda/tap", "{", 400, "invalid argument"},
		{"/wda/touchAndHold", map[string]any{"x": 1, "y": 1, "duration": -1}, 400, "invalid argument"},
		{"/wda/dragfromtoforduration", map[string]any{"fromX": 1, "fromY": 1, "toX": 1, "toY": 700}, 400, "invalid coordinates"},
	} {
		a := r.fails("POST", s+tc.path, tc.body, tc.status, tc.code)
		if tc.code == "invalid coordinates" && !strings.Contains(string(a.Value), "375x667-point screen") {
			t.Errorf("%v: %s; want the screen in points", tc.body, a.Value)
		}
	}
	for _, l := range r.phone.InputLog()[n:] {
		if !strings.HasPrefix(l, "tap ") && !strings.HasPrefix(l, "swipe ") {
			t.Errorf("unexpected input %q", l)
		}
	}
}

func TestActions(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	pointer := func(steps ...map[string]any) map[string]any {
		return map[string]any{"actions": []any{map[string]any{
			"type": "pointer", "id": "finger1", "parameters": map[string]any{"pointerType": "touch"}, "actions": steps,
		}}}
	}
	move := func(x, y float64, ms int, origin string) map[string]any {
		return map[string]any{"type": "pointerMove", "x": x, "y": y, "duration": ms, "origin": origin}
	}
	down := map[string]any{"type": "pointerDown", "button": 0}
	up := map[string]any{"type": "pointerUp", "button": 0}
	pause := func(ms int) map[string]any { return map[string]any{"type": "pause", "duration": ms} }

	for _, tc := range []struct {
		name string
		body any
		want []string
	}{
		{"tap", pointer(move(10, 20, 0, "viewport"), down, up), []string{"tap 20 40 hold=0s"}},
		{"long press", pointer(move(10, 20, 0, ""), down, pause(600), up), []string{"tap 20 40 hold=600ms"}},
		{"swipe", pointer(move(187.5, 500, 0, "viewport"), down, pause(100), move(187.5, 200, 300, "viewport"), up),
			[]string{"swipe 375 1000 375 400 dur=300ms hold=100ms"}},
		{"relative", pointer(move(100, 100, 0, "viewport"), down, move(0, -50, 250, "pointer"), up),
			[]string{"swipe 200 200 200 100 dur=250ms hold=0s"}},
		{"double tap", pointer(move(5, 5, 0, "viewport"), down, up, pause(50), down, up),
			[]string{"tap 10 10 hold=0s", "tap 10 10 hold=0s"}},
		{"left down", pointer(move(5, 5, 0, "viewport"), down, pause(700)), []string{"tap 10 10 hold=700ms"}},
	} {
		n := len(r.phone.InputLog())
		r.ok("POST", s+"/actions", tc.body)
		if got := r.phone.InputLog()[n:]; strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: the phone got %q, want %q", tc.name, got, tc.want)
		}
	}

	n := len(r.phone.InputLog())
	key := map[string]any{"actions": []any{map[string]any{"type": "key", "id": "k", "actions": []any{map[string]any{"type": "keyDown", "value": "a"}}}}}
	twoFingers := map[string]any{"actions": []any{pointer(move(1, 1, 0, ""))["actions"].([]any)[0], pointer(move(2, 2, 0, ""))["actions"].([]any)[0]}}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"no sources", map[string]any{"actions": []any{}}, 400, "invalid argument"},
		{"not JSON", "[", 400, "invalid argument"},
		{"key source", key, 500, "unsupported operation"},
		{"two fingers", twoFingers, 500, "unsupported operation"},
		{"element origin", pointer(map[string]any{"type": "pointerMove", "x": 1, "y": 1, "origin": map[string]any{"element-6066-11e4-a52e-4f735466cecf": "x"}}), 400, "invalid argument"},
		{"negative pause", pointer(pause(-5)), 400, "invalid argument"},
		{"move without x", pointer(map[string]any{"type": "pointerMove", "y": 1}), 400, "invalid argument"},
		{"unknown step", pointer(map[string]any{"type": "scroll"}), 400, "invalid argument"},
		{"off the screen", pointer(move(400, 10, 0, "viewport"), down, up), 400, "invalid coordinates"},
	} {
		t.Run(tc.name, func(t *testing.T) { r.fails("POST", s+"/actions", tc.body, tc.status, tc.code) })
	}
	for _, l := range r.phone.InputLog()[n:] {
		if !strings.HasPrefix(l, "tap 800 ") {
			t.Errorf("a refused action chain reached the phone: %q", l)
		}
	}
}

func TestKeys(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	r.fails("POST", s+"/wda/keys", map[string]any{"value": []string{"h", "i"}}, 400, "invalid element state") // no field focused
	r.ok("POST", s+"/wda/apps/launch", map[string]any{"bundleId": "com.corral.notes"})
	r.ok("POST", s+"/wda/keys", map[string]any{"value": []string{"h", "e", "y", "\b", "\b", "i"}})
	r.ok("POST", s+"/wda/keys", map[string]any{"value": "!\r\nok"}) // one string, leniently
	if got, want := r.phone.Note(), "hi!\nok"; got != want {
		t.Errorf("note = %q, want %q", got, want)
	}
	r.fails("POST", s+"/wda/keys", map[string]any{"value": 5}, 400, "invalid argument")
	r.fails("POST", s+"/wda/keys", map[string]any{}, 400, "invalid argument")
	r.fails("POST", s+"/wda/keys", map[string]any{"value": []string{strings.Repeat("x", 70000)}}, 400, "invalid argument")
}

func TestPressButton(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	for name, want := range map[string]string{"home": "key HOME", "volumeUp": "key VOLUME_UP", "VOLUMEDOWN": "key VOLUME_DOWN"} {
		r.ok("POST", s+"/wda/pressButton", map[string]any{"name": name})
		if got := r.lastInput(); got != want {
			t.Errorf("%s: the phone got %q, want %q", name, got, want)
		}
	}
	n := len(r.phone.InputLog())
	for _, name := range []string{"back", "power", ""} {
		a := r.fails("POST", s+"/wda/pressButton", map[string]any{"name": name}, 500, "unknown error")
		if !strings.Contains(string(a.Value), "home, volumedown, volumeup") {
			t.Errorf("%q: %s; want the buttons listed", name, a.Value)
		}
	}
	if len(r.phone.InputLog()) != n {
		t.Errorf("an unknown button reached the phone: %q", r.lastInput())
	}
}

func TestApps(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	r.ok("POST", s+"/wda/apps/launch", map[string]any{"bundleId": "com.corral.shop", "arguments": []string{"-a"}, "environment": map[string]string{"K": "V"}})
	if app := r.foreground(); app != "com.corral.shop" {
		t.Fatalf("%s in front after launch", app)
	}
	state := func(b string) string {
		return string(r.ok("POST", s+"/wda/apps/state", map[string]any{"bundleId": b}).Value)
	}
	if a, b, c := state("com.corral.shop"), state("com.corral.notes"), state("com.example.none"); a != "4" || b != "1" || c != "0" {
		t.Errorf("states = %s %s %s, want 4 1 0", a, b, c)
	}
	if v := string(r.ok("GET", "/wda/activeAppInfo", nil).Value); !strings.Contains(v, `"env":{"K":"V"}`) || !strings.Contains(v, `"bundleId":"com.corral.shop"`) {
		t.Errorf("activeAppInfo = %s", v)
	}
	if v := string(r.ok("POST", s+"/wda/apps/terminate", map[string]any{"bundleId": "com.corral.shop"}).Value); v != "true" {
		t.Errorf("terminate = %s, want true", v)
	}
	if v := string(r.ok("POST", s+"/wda/apps/terminate", map[string]any{"bundleId": "com.corral.notes"}).Value); v != "false" {
		t.Errorf("terminate of an app not running = %s, want false", v)
	}
	if v := string(r.ok("POST", s+"/wda/apps/terminate", map[string]any{"bundleId": "com.example.none"}).Value); v != "false" {
		t.Errorf("terminate of an app not installed = %s, want false", v)
	}
	r.ok("POST", s+"/wda/apps/activate", map[string]any{"bundleId": "com.corral.notes"})
	if app := r.foreground(); app != "com.corral.notes" {
		t.Errorf("%s in front after activate", app)
	}
	r.fails("POST", s+"/wda/apps/launch", map[string]any{}, 400, "invalid argument")
	r.fails("POST", s+"/wda/apps/launch", map[string]any{"bundleId": "com.corral.shop", "arguments": "-a"}, 400, "invalid argument")
	r.fails("POST", s+"/wda/apps/launch", map[string]any{"bundleId": "com.example.none"}, 500, "unknown error")
}
