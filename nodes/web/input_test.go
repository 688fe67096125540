package web

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// input with nothing focused refuses, as a phone with no keyboard up does, and types nothing;
// with the field focused it types.
func TestInputNeedsAFocusedField(t *testing.T) {
	d := startBrowser(t, "phone")
	base := chain(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := d.LaunchApp(ctx, base+"/p/0"); err != nil {
		t.Fatal(err)
	}
	err := d.InputText(ctx, "typed without focus")
	if !errors.Is(err, ErrNoFocus) || !strings.Contains(err.Error(), "tap the field first") || tools.ErrorCode(err) != broker.CodeBadInput {
		t.Fatalf("input with nothing focused: %v", err)
	}
	if err := d.TapSelector(ctx, "#nothing"); err != nil { // a button takes the focus, not text
		t.Fatal(err)
	}
	if err := d.InputText(ctx, "typed on a button"); !errors.Is(err, ErrNoFocus) {
		t.Fatalf("input with a button focused: %v", err)
	}
	if err := d.TapSelector(ctx, "#field"); err != nil {
		t.Fatal(err)
	}
	if err := d.InputText(ctx, "typed"); err != nil {
		t.Fatal(err)
	}
	src, err := d.Source(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(src, `text="typed"`) || strings.Contains(src, "without focus") {
		t.Errorf("the page holds: %s", src)
	}
}

// BACK on a tab's first page says there is none to go back to, and what to do.
func TestBackWithNoHistory(t *testing.T) {
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := d.PressKey(ctx, "BACK")
	if !errors.Is(err, ErrNoHistory) || !strings.Contains(err.Error(), "app_launch") || strings.Contains(err.Error(), "invalid navigation entry") {
		t.Fatalf("BACK on the first page: %v", err)
	}
}

// app_terminate of a URL no tab shows closes nothing and says so; of one a tab shows, closes it.
func TestTerminateAURLNoTabShows(t *testing.T) {
	d := startBrowser(t, "phone")
	base := chain(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := d.LaunchApp(ctx, base+"/p/0"); err != nil {
		t.Fatal(err)
	}
	err := d.TerminateApp(ctx, "https://not-open.example/")
	if !errors.Is(err, ErrNoTab) || !strings.Contains(err.Error(), "list_packages") {
		t.Fatalf("terminating a URL no tab shows: %v", err)
	}
	if pkgs, err := d.ListPackages(ctx); err != nil || len(pkgs) != 1 {
		t.Fatalf("tabs after: %v, %v", pkgs, err)
	}
	if err := d.TerminateApp(ctx, base+"/p/0"); err != nil {
		t.Fatal(err)
	}
}
