package sim

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

func TestBackAndHome(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	must(t, p.PressKey(ctx, "BACK")) // nothing behind home
	tapOn(t, p, "Settings")
	tapOn(t, p, "Display")
	if node(t, p, "com.corral.settings:id/title").Text != "Display" {
		t.Fatal("Display did not open")
	}
	must(t, p.PressKey(ctx, "BACK"))
	if !has(t, p, "com.corral.settings:id/list") {
		t.Fatal("BACK did not return to the list")
	}
	must(t, p.PressKey(ctx, "keycode_back"))
	if foreground(t, p) != launcherPkg {
		t.Fatal("BACK did not return home")
	}
	tapOn(t, p, "Settings")
	tapOn(t, p, "Sound")
	must(t, p.PressKey(ctx, "HOME"))
	must(t, p.PressKey(ctx, "BACK"))
	if foreground(t, p) != launcherPkg {
		t.Fatal("HOME did not clear the back stack")
	}
}

func TestVolume(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	must(t, p.PressKey(ctx, "VOLUME_UP"))
	if got := node(t, p, "com.android.systemui:id/toast").Text; got != "Volume 8 of 15" {
		t.Fatalf("toast = %q", got)
	}
	for range 20 {
		must(t, p.PressKey(ctx, "VOLUME_DOWN"))
	}
	if node(t, p, "com.android.systemui:id/volume").Text != "Vol 0" {
		t.Fatal("volume not clamped at 0")
	}
	must(t, p.Tap(ctx, device.Point{X: 540, Y: 2300}, 0)) // any input dismisses the toast
	if has(t, p, "com.android.systemui:id/toast") {
		t.Fatal("the toast outlived the next input")
	}
}

func TestAppManager(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	pkgs, err := p.ListPackages(ctx)
	must(t, err)
	if len(pkgs) != 13 || !slices.IsSorted(pkgs) || !slices.Contains(pkgs, "com.corral.settings") || !slices.Contains(pkgs, launcherPkg) {
		t.Fatalf("packages = %v", pkgs)
	}
	err = p.LaunchApp(ctx, "com.nope")
	if !errors.Is(err, ErrUnknownPackage) || !strings.Contains(err.Error(), "ListPackages") || !strings.Contains(err.Error(), "com.corral.shop") {
		t.Fatalf("unknown package: %v", err)
	}
	if err := p.TerminateApp(ctx, "com.nope"); !errors.Is(err, ErrUnknownPackage) {
		t.Fatalf("terminating an unknown package: %v", err)
	}
	must(t, p.LaunchApp(ctx, "com.corral.clock"))
	must(t, p.LaunchApp(ctx, "com.corral.maps"))
	must(t, p.TerminateApp(ctx, "com.corral.clock")) // in the back stack only
	if foreground(t, p) != "com.corral.maps" {
		t.Fatal("terminating a background app changed the foreground")
	}
	must(t, p.TerminateApp(ctx, "com.corral.maps"))
	if foreground(t, p) != launcherPkg {
		t.Fatal("terminating the foreground app did not go home")
	}
	must(t, p.LaunchApp(ctx, "com.corral.music"))
	tapOn(t, p, "Play")
	if !has(t, p, "Playing") {
		t.Fatal("Play did not play")
	}
	must(t, p.LaunchApp(ctx, launcherPkg))
	if foreground(t, p) != launcherPkg {
		t.Fatal("launching the launcher did not go home")
	}
}
