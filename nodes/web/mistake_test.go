package web

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

// The caller's mistakes are device.ErrBadInput, which the tools answer as bad_input, and a
// selector that matches nothing is device.ErrNoElement (not_found), not bad input: none of
// them may pass for the driver's own failure (driver_error). Nothing they ask happens.
func TestCallersMistakesAreBadInput(t *testing.T) {
	d, r, ctx := onTestPage(t, "phone")
	bySelector := map[string]func(context.Context, string) error{
		"tap": d.TapSelector, "hover": d.HoverSelector, "secondary click": d.SecondaryClickSelector,
	}
	for name, act := range bySelector {
		for _, sel := range []string{"a[[", "//div[@", " "} {
			if err := act(ctx, sel); !errors.Is(err, device.ErrBadInput) || !errors.Is(err, ErrBadSelector) {
				t.Errorf("%s by the selector %q that does not parse: %v", name, sel, err)
			}
		}
		if err := act(ctx, "#not-on-the-page"); !errors.Is(err, device.ErrNoElement) || errors.Is(err, device.ErrBadInput) {
			t.Errorf("%s by a selector that matches nothing: %v", name, err)
		}
	}

	err := d.LaunchApp(ctx, "example.org")
	if !errors.Is(err, device.ErrBadInput) || !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), `"https://example.org"`) {
		t.Errorf("app_launch of a bare host: %v", err)
	}
	for _, u := range []string{"file:///etc/passwd", "not a url", "ftp://user:secret@files.example/"} {
		err := d.LaunchApp(ctx, u)
		if !errors.Is(err, device.ErrBadInput) || strings.Contains(err.Error(), "e.g.") || strings.Contains(err.Error(), "secret") {
			t.Errorf("app_launch of %q: %v", u, err)
		}
	}
	if _, err := d.LoginNoUI(ctx, "example.org/login", nil); !errors.Is(err, device.ErrBadInput) {
		t.Errorf("web_login_none_ui of a bare host: %v", err)
	}
	if err := d.CloseTab(ctx, 3); !errors.Is(err, device.ErrBadInput) || !strings.Contains(err.Error(), "0..0") {
		t.Errorf("closing tab 3 of 1: %v", err)
	}
	if err := d.TerminateApp(ctx, "https://not-open.example/"); !errors.Is(err, device.ErrBadInput) {
		t.Errorf("app_terminate of a URL no tab shows: %v", err)
	}
	if err := d.PressKey(ctx, "VOLUME_UP"); !errors.Is(err, device.ErrBadInput) {
		t.Errorf("a key a browser has not: %v", err)
	}
	if err := d.SecondaryClick(ctx, device.Point{X: 1170, Y: 10}); !errors.Is(err, device.ErrBadInput) ||
		!strings.Contains(err.Error(), "(1170,10) is outside the viewport of 1170x2532") {
		t.Errorf("a right click off the viewport: %v", err)
	}

	if pkgs, err := d.ListPackages(ctx); err != nil || len(pkgs) != 1 || pkgs[0] != r.srv.URL+"/" {
		t.Errorf("the tabs after the mistakes: %v, %v", pkgs, err)
	}
	if err := d.TapSelector(ctx, "#first"); err != nil { // the page took nothing before this
		t.Fatal(err)
	}
	r.await(t, "the click on First", on("click", "first"))
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.ID != "first" {
			t.Errorf("the page saw %+v", e)
		}
	}
}
