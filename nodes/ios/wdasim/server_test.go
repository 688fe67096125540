package wdasim_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestStatusShape(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	a := r.ok("GET", "/status", nil)
	var v struct {
		Ready   bool   `json:"ready"`
		State   string `json:"state"`
		Message string `json:"message"`
		OS      struct{ Name, Version string }
		IOS     struct{ IP *string } `json:"ios"`
		Build   struct {
			ProductBundleIdentifier string `json:"productBundleIdentifier"`
		} `json:"build"`
	}
	if err := json.Unmarshal(a.Value, &v); err != nil {
		t.Fatal(err)
	}
	if !v.Ready || v.State != "success" || v.OS.Name != "iOS" || v.OS.Version == "" || v.IOS.IP == nil ||
		v.Build.ProductBundleIdentifier != "com.facebook.WebDriverAgentRunner" || v.Message == "" {
		t.Errorf("status = %s", a.Value)
	}
	if a.SessionID != nil {
		t.Errorf("a new server has session %q", *a.SessionID)
	}
}

var uuid = regexp.MustCompile(`^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$`)

// One session at a time: a new one replaces the old, a deleted one is gone, and an unknown one
// is 404 "invalid session id", as WebDriverAgent answers.
func TestSessionLifecycle(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	r.fails("GET", "/session/NOPE/window/size", nil, 404, "invalid session id")
	first := r.session()
	if !uuid.MatchString(first) {
		t.Errorf("session id %q is not an upper-case UUID", first)
	}
	if a := r.ok("GET", "/session/"+first, nil); a.SessionID == nil || *a.SessionID != first {
		t.Errorf("the envelope names session %v, want %s", a.SessionID, first)
	}
	second := r.session()
	if second == first {
		t.Fatal("two sessions with one id")
	}
	r.fails("GET", "/session/"+first+"/window/size", nil, 404, "invalid session id")
	r.ok("GET", "/session/"+second+"/window/size", nil)
	r.ok("DELETE", "/session/"+second, nil)
	a := r.fails("GET", "/session/"+second+"/window/size", nil, 404, "invalid session id")
	if a.SessionID != nil {
		t.Errorf("after DELETE the envelope names session %q", *a.SessionID)
	}
	r.fails("POST", "/session", map[string]any{}, 500, "session not created")
	r.fails("POST", "/session", "{not json", 500, "session not created")
}

func TestSessionLaunchesItsBundle(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	caps := func(b string) any {
		return map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{"bundleId": b, "arguments": []string{"-x"}}}}
	}
	r.ok("POST", "/session", caps("com.corral.notes"))
	if app := r.foreground(); app != "com.corral.notes" {
		t.Errorf("%s is in front, want the session's bundle", app)
	}
	var info struct {
		BundleID string `json:"bundleId"`
		Process  struct {
			Args []string `json:"args"`
		} `json:"processArguments"`
	}
	if err := json.Unmarshal(r.ok("GET", "/wda/activeAppInfo", nil).Value, &info); err != nil ||
		info.BundleID != "com.corral.notes" || strings.Join(info.Process.Args, " ") != "-x" {
		t.Errorf("activeAppInfo = %+v, %v", info, err)
	}
	r.fails("POST", "/session", caps("com.example.none"), 500, "session not created")
}

func TestUnknownCommand(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	sid := r.session()
	for _, rt := range []struct{ method, path string }{
		{"GET", "/nope"},
		{"POST", "/status"}, // wrong method
		{"POST", "/session/" + sid + "/wda/homescreen"}, // WebDriverAgent serves it without a session only
		{"POST", "/wda/tap"},                            // and this one with a session only
		{"GET", "/session/" + sid + "/status"},
		{"POST", "/session/" + sid + "/wda/tap/0/more"},
	} {
		a := r.fails(rt.method, rt.path, nil, 404, "unknown command")
		if !strings.Contains(string(a.Value), "Unhandled endpoint") {
			t.Errorf("%s %s: %s", rt.method, rt.path, a.Value)
		}
	}
	resp, err := r.hs.Client().Get(r.hs.URL + "/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET /health: %v %v", resp, err)
	}
	resp.Body.Close()
}

func TestRequestsCounted(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	for range 3 {
		r.ok("GET", "/status", nil)
	}
	r.fails("GET", "/nope", nil, 404, "unknown command")
	if n := r.srv.Requests(); n != 4 {
		t.Errorf("Requests = %d, want 4", n)
	}
}
