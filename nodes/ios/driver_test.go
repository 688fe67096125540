package ios

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/uitree"
)

// A simulated iPhone is found through usbmuxd, described from lockdown, and driven through
// WebDriverAgent: taps land where its UI tree says, in pixels of its screenshot.
func TestDriverOnSimulatedIPhone(t *testing.T) {
	sims, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	info := d.Info()
	if info.Platform != device.PlatformIOS || info.Release != "16.7.2" || info.Extra["name"] != "Corral iPhone 01" || info.Extra["developer_mode"] != "true" {
		t.Errorf("info from lockdown: %+v", info)
	}
	ctx := t.Context()
	size, err := d.ScreenSize(ctx)
	if err != nil || size != (device.Size{Width: 750, Height: 1334}) {
		t.Fatalf("screen size %v, %v; want 750x1334 pixels (375x667 points at 2x)", size, err)
	}
	img, err := d.Screenshot(ctx)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if img.Bounds() != image.Rect(0, 0, 750, 1334) {
		t.Fatalf("screenshot %v", img.Bounds())
	}
	src, err := d.Source(ctx)
	if err != nil {
		t.Fatal(err)
	}
	els, err := uitree.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var notes *uitree.Element
	for i, e := range els {
		if e.Text == "Notes" && e.Clickable {
			notes = &els[i]
		}
	}
	if notes == nil {
		t.Fatalf("no tappable Notes icon in the source:\n%s", src)
	}
	c := notes.Bounds.Min.Add(notes.Bounds.Size().Div(2))
	if err := d.Tap(ctx, device.Point{X: c.X, Y: c.Y}, 0); err != nil {
		t.Fatal(err)
	}
	app, err := d.ForegroundApp(ctx)
	if err != nil || app != "com.corral.notes" {
		t.Fatalf("after a tap on the Notes icon the app in front is %q (%v)", app, err)
	}
	phone := sims.Devices()[0].Phone
	if log := phone.InputLog(); len(log) == 0 || !strings.Contains(log[len(log)-1], "tap") {
		t.Errorf("the phone's input log does not end with the tap: %v", log)
	}
	if err := d.PressKey(ctx, "HOME"); err != nil {
		t.Fatal(err)
	}
	if app, _ := d.ForegroundApp(ctx); app == "com.corral.notes" {
		t.Error("HOME left Notes in front")
	}
	if err := d.PressKey(ctx, "BACK"); err == nil || !strings.Contains(err.Error(), "no such key") {
		t.Errorf("BACK on an iPhone: %v", err)
	}
	if err := d.SetClipboard(ctx, "héllo, pasteboard"); err != nil || phone.Clipboard() != "héllo, pasteboard" {
		t.Errorf("the pasteboard holds %q (%v)", phone.Clipboard(), err)
	}
	if err := d.Tap(ctx, device.Point{X: 750, Y: 10}, 0); err == nil {
		t.Error("a tap off the screen did not fail")
	}
}

// Apps come from installation_proxy; an .ipa goes over AFC and is installed, then removed.
func TestDriverApps(t *testing.T) {
	sims, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	ctx := t.Context()
	ipa := writeIPA(t, "org.example.hello", "Hello")
	app, err := d.InstallApp(ctx, ipa)
	if err != nil || app != (device.InstalledApp{ID: "org.example.hello", Version: "1.0"}) {
		t.Fatalf("installing: %+v, %v; want org.example.hello 1.0", app, err)
	}
	pkgs, err := d.ListPackages(ctx)
	if err != nil || !contains(pkgs, "org.example.hello") || !contains(pkgs, "com.corral.notes") {
		t.Fatalf("after installing: %v, %v", pkgs, err)
	}
	if !hasApp(sims.Devices()[0].Apps(), "org.example.hello") {
		t.Error("the device did not install it")
	}
	if err := d.UninstallApp(ctx, "org.example.hello"); err != nil {
		t.Fatal(err)
	}
	if hasApp(sims.Devices()[0].Apps(), "org.example.hello") {
		t.Error("still installed after uninstall")
	}
	if err := d.UninstallApp(ctx, "org.example.nope"); err == nil {
		t.Error("uninstalling an app that is not there did not fail")
	}
	bad := writeFile(t, "broken.ipa", []byte("not a zip"))
	if _, err := d.InstallApp(ctx, bad); err == nil {
		t.Error("a broken .ipa installed")
	}
	if _, err := d.InstallApp(ctx, writeFile(t, "app.apk", []byte("PK"))); err == nil || !strings.Contains(err.Error(), ".ipa") {
		t.Errorf("an .apk on an iPhone: %v", err)
	}
}

// list_packages (installation_proxy) and app_launch (WebDriverAgent) agree: every listed app
// launches and comes to the front, and one not listed is not installed for either. Before,
// installation_proxy listed Apple's apps that WebDriverAgent's phone did not have, and not the
// phone's own.
func TestDriverListAndLaunchAgree(t *testing.T) {
	_, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	ctx := t.Context()
	pkgs, err := d.ListPackages(ctx)
	if err != nil || !contains(pkgs, "com.corral.notes") {
		t.Fatalf("installed: %v, %v", pkgs, err)
	}
	for _, p := range pkgs {
		if err := d.LaunchApp(ctx, p); err != nil {
			t.Errorf("%s is listed but does not launch: %v", p, err)
			continue
		}
		if front, err := d.ForegroundApp(ctx); err != nil || front != p {
			t.Errorf("after launching %s, %q is in front (%v)", p, front, err)
		}
	}
	ipa := writeIPA(t, "org.example.hello", "Hello")
	if _, err := d.InstallApp(ctx, ipa); err != nil {
		t.Fatal(err)
	}
	// An app installed later comes to the front too, as on an iPhone, and leaves it when
	// terminated or uninstalled.
	for _, end := range []func() error{
		func() error { return d.TerminateApp(ctx, "org.example.hello") },
		func() error { return d.UninstallApp(ctx, "org.example.hello") },
	} {
		if err := d.LaunchApp(ctx, "org.example.hello"); err != nil {
			t.Fatalf("launching an installed app: %v", err)
		}
		if front, err := d.ForegroundApp(ctx); err != nil || front != "org.example.hello" {
			t.Fatalf("after launching org.example.hello, %q is in front (%v)", front, err)
		}
		if err := end(); err != nil {
			t.Fatal(err)
		}
		if front, err := d.ForegroundApp(ctx); err != nil || front != "com.corral.launcher" {
			t.Fatalf("after org.example.hello ended, %q is in front (%v)", front, err)
		}
	}
	if _, err := d.InstallApp(ctx, ipa); err != nil {
		t.Fatal(err)
	}
	if err := d.LaunchApp(ctx, "com.apple.Preferences"); !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "com.apple.Preferences is not installed") {
		t.Errorf("an app that is not listed: %v", err)
	}
	if err := d.TerminateApp(ctx, "com.apple.Preferences"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("terminating an app that is not installed: %v", err)
	}
	if err := d.TerminateApp(ctx, "com.corral.notes"); err != nil {
		t.Errorf("terminating Notes: %v", err)
	}
	if err := d.TerminateApp(ctx, "org.example.hello"); err != nil {
		t.Errorf("terminating an installed app that does not run: %v", err)
	}
}

// Unplugged, a device is removed as "device disconnected"; plugged in again, it is back.
func TestAttachDetach(t *testing.T) {
	sims, reg := simFarm(t, 2)
	ready(t, reg, "ios-sim-01")
	ready(t, reg, "ios-sim-02")
	sims.Host.Detach("ios-sim-01")
	eventually(t, 5*time.Second, func() bool { r, ok := reg.removedReason("ios-sim-01"); return ok && r == RemovedReason }, "ios-sim-01 removed")
	if reg.driver("ios-sim-02") == nil {
		t.Fatal("the other device went too")
	}
	sims.Host.Attach(sims.Devices()[0].Device)
	ready(t, reg, "ios-sim-01")
}

// usbmuxd restarts: the drivers stay (under their new ids) and work; a device unplugged while
// usbmuxd was away is removed.
func TestUsbmuxdRestart(t *testing.T) {
	sims, reg := simFarm(t, 2)
	d1 := ready(t, reg, "ios-sim-01")
	ready(t, reg, "ios-sim-02")
	before := d1.DeviceID()
	if err := sims.Host.Restart(); err != nil {
		t.Fatal(err)
	}
	sims.Host.Detach("ios-sim-02")
	eventually(t, 10*time.Second+relistGrace, func() bool { _, ok := reg.removedReason("ios-sim-02"); return ok }, "ios-sim-02 removed")
	eventually(t, 10*time.Second, func() bool { return d1.DeviceID() != before }, "ios-sim-01 under its new id")
	if reg.driver("ios-sim-01") != d1 {
		t.Fatal("ios-sim-01's driver was replaced or removed")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := d1.ForegroundApp(ctx); err != nil {
		t.Fatalf("ios-sim-01 after usbmuxd restarted: %v", err)
	}
}

// WebDriverAgent killed: the device shows unhealthy, WDA is restarted and the next call works
// within 10 s; the other device is never touched.
func TestWDAKilledIsRestarted(t *testing.T) {
	sims, reg := simFarm(t, 2)
	d1 := ready(t, reg, "ios-sim-01")
	ready(t, reg, "ios-sim-02")
	other := sims.Devices()[1].WDA()
	killed := sims.Devices()[0]
	old := killed.WDA()
	killed.Unhandle(DefaultWDAPort)
	ctx := t.Context()
	start := time.Now()
	_, _ = d1.ForegroundApp(ctx) // fails, unless the supervisor's probe restarted WDA already
	eventually(t, 10*time.Second, func() bool {
		_, err := d1.ForegroundApp(ctx)
		return err == nil && killed.WDA() != old
	}, "ios-sim-01 works again with a new WebDriverAgent")
	t.Logf("WebDriverAgent restarted and answering %s after it was killed", time.Since(start).Round(time.Millisecond))
	if sims.Devices()[1].WDA() != other {
		t.Error("the other device's WebDriverAgent was restarted")
	}
	if err, _ := reg.healthOf("ios-sim-02"); err != nil {
		t.Errorf("the other device is unhealthy: %v", err)
	}
}
