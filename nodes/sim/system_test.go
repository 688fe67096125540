package sim

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/android/apk"
	"github.com/corral-farm/corral/nodes/device"
)

func appFile(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("PK\x03\x04"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// mustInstall installs path on p and checks it names the package its file name gives.
func mustInstall(t *testing.T, p *Phone, path string) {
	t.Helper()
	app, err := p.InstallApp(ctxT(t), path)
	must(t, err)
	if want := packageOf(path); app.ID != want {
		t.Fatalf("installing %s named %+v, want %s", path, app, want)
	}
}

// A phone names what it installed as a phone reads it: from the APK's manifest (whatever the
// file is called), else from the file name.
func TestInstallNamesTheApp(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	b, err := apk.Build(apk.Manifest{Package: "com.example.shop", VersionName: "2.4.1", VersionCode: 241})
	must(t, err)
	path := filepath.Join(t.TempDir(), "download.apk")
	must(t, os.WriteFile(path, b, 0o600))
	app, err := p.InstallApp(ctx, path)
	if err != nil || app != (device.InstalledApp{ID: "com.example.shop", Version: "2.4.1"}) {
		t.Fatalf("installing an APK of com.example.shop 2.4.1 named download.apk: %+v, %v", app, err)
	}
	pkgs, err := p.ListPackages(ctx)
	must(t, err)
	if !slices.Contains(pkgs, "com.example.shop") || slices.Contains(pkgs, "download") {
		t.Fatalf("packages %v: want com.example.shop", pkgs)
	}
	app, err = p.InstallApp(ctx, appFile(t, "org.test.apk")) // no manifest: the file name
	if err != nil || app != (device.InstalledApp{ID: "org.test"}) {
		t.Fatalf("installing org.test.apk with no manifest: %+v, %v", app, err)
	}
}

func TestInstallUninstall(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	mustInstall(t, p, appFile(t, "com.example.app.apk"))
	mustInstall(t, p, appFile(t, "com.example.app.apk")) // a reinstall
	mustInstall(t, p, appFile(t, "org.test"))
	pkgs, err := p.ListPackages(ctx)
	must(t, err)
	if !slices.Contains(pkgs, "com.example.app") || !slices.Contains(pkgs, "org.test") || !slices.IsSorted(pkgs) ||
		len(pkgs) != len(packages())+2 {
		t.Fatalf("packages after install: %v", pkgs)
	}
	must(t, p.LaunchApp(ctx, "com.example.app"))
	must(t, p.TerminateApp(ctx, "com.example.app"))
	must(t, p.ClearApp(ctx, "com.example.app"))
	must(t, p.UninstallApp(ctx, "com.example.app"))
	if err := p.UninstallApp(ctx, "com.example.app"); !errors.Is(err, ErrUnknownPackage) {
		t.Fatalf("second uninstall: %v", err)
	}
	if err := p.UninstallApp(ctx, "com.corral.notes"); !errors.Is(err, ErrSystemApp) {
		t.Fatalf("uninstalling a system app: %v", err)
	}
	if _, err := p.InstallApp(ctx, filepath.Join(t.TempDir(), "missing.apk")); !errors.Is(err, ErrNoFile) {
		t.Fatalf("installing a missing file: %v", err)
	}
	if _, err := p.InstallApp(ctx, t.TempDir()); !errors.Is(err, ErrNoFile) {
		t.Fatalf("installing a directory: %v", err)
	}
	if _, err := p.InstallApp(ctx, appFile(t, "9lives.apk")); !errors.Is(err, ErrBadInput) {
		t.Fatalf("installing a file whose name is no package: %v", err)
	}
	log := p.InputLog()
	for _, want := range []string{"install com.example.app", "install org.test", "clear com.example.app", "uninstall com.example.app"} {
		if !slices.Contains(log, want) {
			t.Errorf("input log lacks %q: %v", want, log)
		}
	}
}

func TestPackageOf(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/com.example.app.apk":    "com.example.app",
		"/tmp/x/com.example.APK":      "com.example",
		`C:\apps\com.win.app.apk`:     "com.win.app",
		"/tmp/com.example.app":        "com.example.app",
		"/data/app.ipa":               "app",
		"relative/dir/org.a.b.c.apks": "org.a.b.c",
	} {
		if got := packageOf(in); got != want {
			t.Errorf("packageOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClearApp(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	must(t, p.LaunchApp(ctx, "com.corral.notes"))
	must(t, p.InputText(ctx, "remember"))
	must(t, p.ClearApp(ctx, "com.corral.notes"))
	if got := foreground(t, p); got != launcherPkg {
		t.Fatalf("clearing the app in front should stop it; %s is in front", got)
	}
	must(t, p.LaunchApp(ctx, "com.corral.notes"))
	if has(t, p, "remember") {
		t.Fatal("the note survived app_clear")
	}
	if err := p.ClearApp(ctx, "com.bogus"); !errors.Is(err, ErrUnknownPackage) {
		t.Fatalf("clearing an unknown package: %v", err)
	}
}

func TestForegroundApp(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	fg := func() string {
		t.Helper()
		pkg, err := p.ForegroundApp(ctx)
		must(t, err)
		return pkg
	}
	if got := fg(); got != launcherPkg {
		t.Fatalf("home: %s", got)
	}
	must(t, p.LaunchApp(ctx, "com.corral.shop"))
	tapOn(t, p, "Item 1")
	if got := fg(); got != "com.corral.shop" {
		t.Fatalf("shop item: %s", got)
	}
	must(t, p.PressKey(ctx, "POWER"))
	if got := fg(); got != systemPkg {
		t.Fatalf("locked: %s", got)
	}
}

func TestIMEClipboardDensityStatus(t *testing.T) {
	p := New("s", WithDensity(560))
	ctx := ctxT(t)
	if p.IME() != DefaultIME {
		t.Fatalf("default IME %q", p.IME())
	}
	must(t, p.SetIME(ctx, "com.android.adbkeyboard/.AdbIME"))
	if p.IME() != "com.android.adbkeyboard/.AdbIME" {
		t.Fatalf("IME %q", p.IME())
	}
	if err := p.SetIME(ctx, "com.bogus/.IME"); !errors.Is(err, ErrUnknownIME) {
		t.Fatalf("unknown IME: %v", err)
	}
	must(t, p.SetClipboard(ctx, "héllo \"x\""))
	if p.Clipboard() != "héllo \"x\"" || !slices.Contains(p.InputLog(), `clipboard "héllo \"x\""`) {
		t.Fatalf("clipboard %q, log %v", p.Clipboard(), p.InputLog())
	}
	if d, err := p.Density(ctx); err != nil || d != 560 {
		t.Fatalf("density %d %v", d, err)
	}
	if d, _ := New("s").Density(ctx); d != DefaultDensity {
		t.Fatalf("default density %d", d)
	}
	st, err := p.Status(ctx)
	must(t, err)
	if st["battery_level"] != "100" || st["locked"] != "false" || st["ime"] != "com.android.adbkeyboard/.AdbIME" {
		t.Fatalf("status %v", st)
	}
	p.FailNext(nil)
	if _, err := p.Status(ctx); !errors.Is(err, ErrInjected) {
		t.Fatalf("injected failure: %v", err)
	}
}

// A long press on the note's field shows Paste when the clipboard holds text, and Paste puts
// it into the note; without text on the clipboard, or with a short tap, no Paste shows.
func TestLongPressOnTheNotePastes(t *testing.T) {
	ctx := t.Context()
	p := New("paste")
	field := device.Point{X: 540, Y: 800}
	pasteShows := func() bool {
		src, err := p.Source(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(src, `resource-id="android:id/paste"`)
	}
	if err := p.LaunchApp(ctx, "com.corral.notes"); err != nil {
		t.Fatal(err)
	}
	if err := p.Tap(ctx, field, time.Second); err != nil || pasteShows() {
		t.Fatalf("long press with an empty clipboard: Paste shows %v (%v)", pasteShows(), err)
	}
	if err := p.SetClipboard(ctx, "from the clipboard"); err != nil {
		t.Fatal(err)
	}
	if err := p.Tap(ctx, field, 100*time.Millisecond); err != nil || pasteShows() {
		t.Fatalf("short tap: Paste shows %v (%v)", pasteShows(), err)
	}
	if err := p.Tap(ctx, field, time.Second); err != nil || !pasteShows() {
		t.Fatalf("long press: Paste shows %v (%v)", pasteShows(), err)
	}
	if err := p.Tap(ctx, device.Point{X: 200, Y: 440}, 0); err != nil { // the Paste button
		t.Fatal(err)
	}
	if got := p.Note(); got != "from the clipboard" || pasteShows() {
		t.Errorf("after Paste the note holds %q (Paste still shows: %v)", got, pasteShows())
	}
}
