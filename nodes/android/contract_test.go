package android

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/android/apk"
	"github.com/corral-farm/corral/nodes/device"
)

// newCommands runs f and returns the commands the device received meanwhile.
func newCommands(t *testing.T, dev *adbsim.Device, f func() error) []string {
	t.Helper()
	before := len(dev.Commands())
	if err := f(); err != nil {
		t.Fatal(err)
	}
	return dev.Commands()[before:]
}

// Each operation lands on the device as the exact command of docs/android.md. The device's
// event devices are not writable, so touches and keys are `input` commands (the fallback).
func TestContractCommands(t *testing.T) {
	dev, d := newDevice(t, adbsim.WithInputDevicesDenied())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := device.Point{X: 540, Y: 1200}
	cases := []struct {
		name string
		run  func() error
		want []string
	}{
		{"tap", func() error { return d.Tap(ctx, p, 0) }, []string{"input tap 540 1200"}},
		{"long press", func() error { return d.Tap(ctx, p, 800*time.Millisecond) }, []string{"input swipe 540 1200 540 1200 800"}},
		{"zero is a coordinate", func() error { return d.Tap(ctx, device.Point{}, 0) }, []string{"input tap 0 0"}},
		{"swipe", func() error {
			return d.Swipe(ctx, device.Point{X: 540, Y: 1800}, device.Point{X: 540, Y: 600}, 300*time.Millisecond, 0)
		}, []string{"input swipe 540 1800 540 600 300"}},
		{"drag", func() error {
			return d.Swipe(ctx, device.Point{X: 100, Y: 200}, device.Point{X: 300, Y: 400}, 1500*time.Millisecond, 500*time.Millisecond)
		}, []string{"input draganddrop 100 200 300 400 1500"}},
		{"key", func() error { return d.PressKey(ctx, "home") }, []string{"input keyevent KEYCODE_HOME"}},
		{"key alias", func() error { return d.PressKey(ctx, "volume up") }, []string{"input keyevent KEYCODE_VOLUME_UP"}},
		{"density", func() error { _, err := d.Density(ctx); return err }, []string{"wm density"}},
		{"screenshot", func() error { _, err := d.Screenshot(ctx); return err }, []string{"screencap"}},
		{"source", func() error { _, err := d.Source(ctx); return err }, []string{"uiautomator dump /dev/tty"}},
		{"packages", func() error { _, err := d.ListPackages(ctx); return err }, []string{"pm list packages"}},
		{"launch", func() error { return d.LaunchApp(ctx, "com.corral.notes") },
			[]string{"monkey -p com.corral.notes -c android.intent.category.LAUNCHER 1"}},
		{"foreground", func() error { _, err := d.ForegroundApp(ctx); return err }, []string{"dumpsys window | grep mCurrentFocus"}},
		{"terminate", func() error { return d.TerminateApp(ctx, "com.corral.notes") }, []string{"pm path com.corral.notes", "am force-stop com.corral.notes"}},
		{"clear", func() error { return d.ClearApp(ctx, "com.corral.notes") }, []string{"pm clear com.corral.notes"}},
		{"ime", func() error { return d.SetIME(ctx, adbKeyboard) }, []string{"ime set com.android.adbkeyboard/.AdbIME"}},
		{"clipboard", func() error { return d.SetClipboard(ctx, "it's $(x) `y`") },
			[]string{`am broadcast -a clipper.set -e text 'it'\''s $(x) ` + "`y`'"}},
		{"status", func() error { _, err := d.Status(ctx); return err }, []string{"dumpsys battery"}},
		{"health", func() error { return d.Health(ctx) }, []string{"echo ok"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := newCommands(t, dev, c.run); !slices.Equal(got, c.want) {
				t.Errorf("commands %q, want %q", got, c.want)
			}
		})
	}
	t.Run("double tap", func(t *testing.T) {
		got := newCommands(t, dev, func() error { return d.DoubleTap(ctx, p) })
		if want := []string{"input tap 540 1200 & sleep 0.15; input tap 540 1200; wait"}; !slices.Equal(got, want) {
			t.Errorf("commands %q, want %q", got, want)
		}
	})
	t.Run("screen size", func(t *testing.T) {
		d.size.forget()
		got := newCommands(t, dev, func() error { _, err := d.ScreenSize(ctx); return err })
		slices.Sort(got) // the two run in parallel
		if want := []string{"dumpsys input | grep Orientation", "wm size"}; !slices.Equal(got, want) {
			t.Errorf("commands %q, want %q", got, want)
		}
		if again := newCommands(t, dev, func() error { _, err := d.ScreenSize(ctx); return err }); len(again) != 0 {
			t.Errorf("a second ScreenSize within %v sent %q", sizeTTL, again)
		}
	})
}

func TestInfoAndStatus(t *testing.T) {
	_, d := newDevice(t, adbsim.WithModel("Pixel Sim"))
	info := d.Info()
	if info.Platform != device.PlatformAndroid || info.Model != "Pixel Sim" || info.Serial == "" ||
		info.Brand == "" || info.Release == "" || info.SDK == "" {
		t.Errorf("Info = %+v", info)
	}
	st, err := d.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"battery_level", "battery_status", "model", "brand", "release", "sdk"} {
		if st[k] == "" {
			t.Errorf("Status has no %s: %v", k, st)
		}
	}
}

// Text of every kind reaches the phone exactly, through `input text` or the ADBKeyboard
// broadcast (after checking that ADBKeyboard is the active input method), and nothing of it
// is run by the shell.
func TestInputTextLandsExactly(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.LaunchApp(ctx, "com.corral.notes"); err != nil {
		t.Fatal(err)
	}
	// With the phone's own keyboard active, non-ASCII text is refused, not silently lost.
	before := len(dev.Phone().InputLog())
	err := d.InputText(ctx, "中文")
	if !errors.Is(err, ErrNoADBKeyboard) || !strings.Contains(err.Error(), "ADBKeyboard") || !strings.Contains(err.Error(), "set_ime") {
		t.Fatalf("non-ASCII text without ADBKeyboard: %v", err)
	}
	if n := len(dev.Phone().InputLog()) - before; n != 0 {
		t.Fatalf("the refused text reached the phone (%d inputs)", n)
	}
	if err := d.SetIME(ctx, adbKeyboard); err != nil {
		t.Fatal(err)
	}
	for _, text := range hostile {
		want, broadcast := textCommands(text)
		if broadcast {
			want = append([]string{"settings get secure default_input_method"}, want...)
		}
		before := len(dev.Phone().InputLog())
		got := newCommands(t, dev, func() error { return d.InputText(ctx, text) })
		if !slices.Equal(got, want) {
			t.Errorf("%q: commands %q, want %q", text, got, want)
		}
		if typed := typedSince(t, dev, before); typed != text {
			t.Errorf("%q: the phone got %q", text, typed)
		}
	}
	for _, c := range dev.Commands() {
		if strings.Contains(c, "reboot") && !strings.Contains(c, "ADB_INPUT_B64") && !strings.HasPrefix(c, "input text '") {
			t.Errorf("text reached the shell unquoted: %q", c)
		}
	}
}

func TestScreenSizeOverrideAndRotation(t *testing.T) {
	dev, d := newDevice(t, adbsim.WithPhoneOptions())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	size := func() device.Size {
		t.Helper()
		d.size.forget()
		s, err := d.ScreenSize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := size(); got != (device.Size{Width: 1080, Height: 2400}) {
		t.Errorf("size %v, want 1080x2400", got)
	}
	if _, err := d.shell(ctx, "test", "wm size 720x1600"); err != nil {
		t.Fatal(err)
	}
	if got := size(); got != (device.Size{Width: 720, Height: 1600}) {
		t.Errorf("size with override %v, want 720x1600", got)
	}
	if err := dev.SetRotation(1); err != nil {
		t.Fatal(err)
	}
	if got := size(); got != (device.Size{Width: 1600, Height: 720}) {
		t.Errorf("size rotated %v, want 1600x720", got)
	}
	img, err := d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1600 || b.Dy() != 720 {
		t.Errorf("screenshot %v, want 1600x720", b)
	}
	if _, err := d.shell(ctx, "test", "wm density 320"); err != nil {
		t.Fatal(err)
	}
	if dpi, err := d.Density(ctx); err != nil || dpi != 320 {
		t.Errorf("density %d, %v; want the 320 override", dpi, err)
	}
}

// A double tap's two `input tap`s (the fallback) land inside Android's double-tap window
// (40–300 ms apart) even when every `input` takes 300 ms to start, as on a phone; taps sent
// one after the other would be 300 ms and more apart. The timing is the simulated phone's,
// which runs on the test's host: a loaded host that does not run it for a while (572 ms seen
// at load ~25) moves its taps, so a few out of the window are tried again; a command whose
// taps are not started 150 ms apart misses every time, and fails.
func TestDoubleTapLandsInsideTheWindow(t *testing.T) {
	dev, d := newDevice(t, adbsim.WithInputStartup(300*time.Millisecond), adbsim.WithInputDevicesDenied())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := device.Point{X: 540, Y: 1200}
	const want, maxMissed = 3, 3
	var missed []string
	for inside := 0; inside < want; {
		before := len(dev.Taps())
		if err := d.DoubleTap(ctx, p); err != nil {
			t.Fatal(err)
		}
		taps := dev.Taps()[before:]
		if len(taps) != 2 || taps[0].Point != p || taps[1].Point != p {
			t.Fatalf("taps %+v, want two at %v", taps, p)
		}
		if gap := taps[1].At.Sub(taps[0].At); gap < 40*time.Millisecond || gap > 300*time.Millisecond {
			if missed = append(missed, gap.Round(time.Millisecond).String()); len(missed) > maxMissed {
				t.Fatalf("double taps landed %s apart, outside Android's 40–300 ms double-tap window", strings.Join(missed, ", "))
			}
			t.Logf("the taps landed %v apart, outside the window (a host that did not keep time?): tried again", gap)
			continue
		}
		inside++
	}
	// Cancelled mid-way, neither tap is left running on the device.
	cctx, ccancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer ccancel()
	before := len(dev.Taps())
	if err := d.DoubleTap(cctx, p); err == nil {
		t.Fatal("a double tap cancelled after 100 ms succeeded")
	}
	time.Sleep(600 * time.Millisecond)
	if n := len(dev.Taps()) - before; n != 0 {
		t.Errorf("%d taps landed after the double tap was cancelled", n)
	}
}

// What `input` (the fallback) prints is its failure: a drag on Android 10 is refused before anything is sent
// (draganddrop came with Android 11), and a phone that refuses injected input says how to
// allow it.
func TestInputFailuresAreErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	from, to := device.Point{X: 100, Y: 200}, device.Point{X: 300, Y: 400}

	old, d := newDevice(t, adbsim.WithAndroid("10", 29), adbsim.WithInputDevicesDenied())
	got := newCommands(t, old, func() error {
		err := d.Swipe(ctx, from, to, 300*time.Millisecond, time.Second)
		if !errors.Is(err, ErrCommandFailed) || !strings.Contains(err.Error(), "Android 11 (SDK 30)") || !strings.Contains(err.Error(), "Android 10 (SDK 29)") {
			t.Errorf("drag on Android 10: %v", err)
		}
		return nil
	})
	if len(got) != 0 {
		t.Errorf("a drag on Android 10 sent %q", got)
	}
	if err := d.Swipe(ctx, from, to, 300*time.Millisecond, 0); err != nil {
		t.Errorf("swipe on Android 10: %v", err)
	}
	// Had the driver sent it, the old device would have said so, and that is an error too.
	if err := d.input(ctx, "drag", "input draganddrop 1 2 3 4 5"); !errors.Is(err, ErrCommandFailed) || !strings.Contains(err.Error(), "Unknown command: draganddrop") {
		t.Errorf("draganddrop on Android 10: %v", err)
	}

	denied, d := newDevice(t, adbsim.WithInputDenied(), adbsim.WithInputDevicesDenied())
	for name, act := range map[string]func() error{
		"tap":        func() error { return d.Tap(ctx, from, 0) },
		"double tap": func() error { return d.DoubleTap(ctx, from) },
		"swipe":      func() error { return d.Swipe(ctx, from, to, 300*time.Millisecond, 0) },
		"key":        func() error { return d.PressKey(ctx, "HOME") },
		"text":       func() error { return d.InputText(ctx, "hello") },
	} {
		err := act()
		if !errors.Is(err, ErrCommandFailed) || !strings.Contains(err.Error(), "INJECT_EVENTS") || !strings.Contains(err.Error(), "USB debugging (Security settings)") {
			t.Errorf("%s on a phone refusing input: %v", name, err)
		}
	}
	if log := denied.Phone().InputLog(); len(log) != 0 {
		t.Errorf("a phone refusing input got %q", log)
	}
}

// Each Android generation prints the touch screen's rotation its own way in `dumpsys input`;
// the driver reads all of them, and the model and release it reports are the device's.
func TestRotationOnEachAndroidGeneration(t *testing.T) {
	for _, v := range []struct {
		release string
		sdk     int
	}{{"12", 32}, {"14", 34}, {"15", 35}} {
		t.Run("Android "+v.release, func(t *testing.T) {
			dev, d := newDevice(t, adbsim.WithAndroid(v.release, v.sdk))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for rot, want := range []device.Size{{Width: 1080, Height: 2400}, {Width: 2400, Height: 1080}, {Width: 1080, Height: 2400}, {Width: 2400, Height: 1080}} {
				if err := dev.SetRotation(rot); err != nil {
					t.Fatal(err)
				}
				d.size.forget()
				if got, err := d.ScreenSize(ctx); err != nil || got != want {
					t.Errorf("rotation %d: size %v, %v; want %v", rot, got, err, want)
				}
			}
			if info := d.Info(); info.Release != v.release || info.SDK != strconv.Itoa(v.sdk) {
				t.Errorf("info %+v; want release %s, SDK %d", info, v.release, v.sdk)
			}
		})
	}
}

func TestInstallUninstall(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// An APK whose manifest names its package, whatever the file is called; 200 KB: several
	// DATA chunks.
	path := writeAPK(t, "app.apk", apk.Manifest{Package: "com.example.installed", VersionName: "3.1", VersionCode: 31}, 200<<10)
	var app device.InstalledApp
	got := newCommands(t, dev, func() (err error) { app, err = d.InstallApp(ctx, path); return err })
	if want := []string{"pm install -r " + installPath, "rm -f " + installPath}; !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
	if app != (device.InstalledApp{ID: "com.example.installed", Version: "3.1"}) {
		t.Errorf("installed %+v, want com.example.installed 3.1", app)
	}
	if !slices.Contains(dev.Installed(), "com.example.installed") {
		t.Errorf("installed %q", dev.Installed())
	}
	if _, ok := dev.File(installPath); ok {
		t.Error("the pushed APK was not removed")
	}
	pkgs, err := d.ListPackages(ctx)
	if err != nil || !slices.Contains(pkgs, "com.example.installed") {
		t.Errorf("packages %q, %v", pkgs, err)
	}
	if err := d.UninstallApp(ctx, "com.example.installed"); err != nil {
		t.Fatal(err)
	}
	err = d.UninstallApp(ctx, "com.example.installed")
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "list_packages") {
		t.Errorf("second uninstall: %v", err)
	}

	bad := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(bad, []byte("not an apk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.InstallApp(ctx, bad); err == nil || !strings.Contains(err.Error(), "INSTALL_PARSE_FAILED_NOT_APK") {
		t.Errorf("installing a text file: %v", err)
	}
	if _, err := d.InstallApp(ctx, filepath.Join(t.TempDir(), "missing.apk")); err == nil {
		t.Error("installing a missing file worked")
	}
}

// A package that is not installed is said to be so, with where to see the installed ones:
// am force-stop answers nothing for it, pm clear "Failed" and pm uninstall
// DELETE_FAILED_INTERNAL_ERROR, as on a real phone. A system app that pm uninstall refuses
// is said to be one.
func TestNotInstalledIsSaid(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for name, err := range map[string]error{
		"terminate": d.TerminateApp(ctx, "com.not.installed"),
		"clear":     d.ClearApp(ctx, "com.not.installed"),
		"uninstall": d.UninstallApp(ctx, "com.not.installed"),
	} {
		if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "com.not.installed") || !strings.Contains(err.Error(), "list_packages") {
			t.Errorf("%s of a package not installed: %v", name, err)
		}
	}
	before := len(dev.Commands())
	_ = d.TerminateApp(ctx, "com.not.installed")
	if got, want := dev.Commands()[before:], []string{"pm path com.not.installed"}; !slices.Equal(got, want) {
		t.Errorf("terminating a package not installed sent %q, want %q", got, want)
	}
	err := d.UninstallApp(ctx, "com.corral.notes")
	if err == nil || errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "system app (at /system/app/notes/notes.apk)") ||
		!strings.Contains(err.Error(), "app_clear") {
		t.Errorf("uninstalling a system app: %v", err)
	}
	if pkgs, _ := d.ListPackages(ctx); !slices.Contains(pkgs, "com.corral.notes") {
		t.Errorf("the system app is gone: %q", pkgs)
	}
}

// Answers that mean failure become errors that say why.
func TestFailuresAreReported(t *testing.T) {
	_, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for name, err := range map[string]error{
		"launch unknown": d.LaunchApp(ctx, "com.example.nothere"),
		"clear unknown":  d.ClearApp(ctx, "com.example.nothere"),
		"ime unknown":    d.SetIME(ctx, "com.example/.NoIME"),
		"bad package":    d.LaunchApp(ctx, "com.x; reboot"),
		"bad key":        d.PressKey(ctx, "HOME; reboot"),
		"bad ime":        d.SetIME(ctx, "$(reboot)/.x"),
		"negative point": d.Tap(ctx, device.Point{X: -1, Y: 3}, 0),
		"clipboard nul":  d.SetClipboard(ctx, "a\x00b"),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.HasPrefix(err.Error(), "android "+d.Serial()+": ") {
			t.Errorf("%s: error %q does not name the device", name, err)
		}
	}
}
