package adbsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"strings"
	"syscall"
	"testing"

	"github.com/corral-farm/corral/nodes/sim"
)

func TestScreencap(t *testing.T) {
	d := newDevice(t, WithPhoneOptions(sim.WithSize(540, 1200))) // small: PNG under -race is slow
	size := func(line string) string {
		img, err := png.Decode(strings.NewReader(sh(t, d, line)))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return fmt.Sprintf("%dx%d", img.Bounds().Dx(), img.Bounds().Dy())
	}
	if got := size("screencap -p"); got != "540x1200" {
		t.Errorf("screencap -p: %s", got)
	}
	sh(t, d, "wm size 360x800")
	if got := size("screencap -p"); got != "360x800" {
		t.Errorf("with an override: %s", got)
	}
	_ = d.SetRotation(3)
	if got := size("screencap -p"); got != "800x360" {
		t.Errorf("rotated: %s", got)
	}
	if got := sh(t, d, "screencap -p /sdcard/s.png && echo saved"); got != "saved\n" {
		t.Errorf("screencap to a file: %q", got)
	}
	if f, ok := d.File("/sdcard/s.png"); !ok || !bytes.HasPrefix(f.Data, []byte("\x89PNG")) {
		t.Errorf("screencap file: %v", ok)
	}
}

func TestUIAutomatorDump(t *testing.T) {
	d := newDevice(t)
	out := sh(t, d, "uiautomator dump /dev/tty")
	xml, ok := strings.CutSuffix(out, "UI hierchary dumped to: /dev/tty\n")
	if !ok || !strings.HasPrefix(xml, "<?xml") || !strings.HasSuffix(xml, "</hierarchy>") {
		t.Errorf("dump: %.100s … %.100s", out, out[max(0, len(out)-100):])
	}
	if got := sh(t, d, "uiautomator dump"); got != "UI hierchary dumped to: /sdcard/window_dump.xml\n" {
		t.Errorf("dump to the default file: %q", got)
	}
	if got := sh(t, d, "cat /sdcard/window_dump.xml"); got != xml {
		t.Errorf("the dumped file differs from the dump")
	}
}

func TestPackages(t *testing.T) {
	d := newDevice(t)
	for _, tc := range []struct{ line, want string }{
		{"pm install -r /data/local/tmp/none.apk", "Failure [INSTALL_FAILED_INVALID_URI: no file at /data/local/tmp/none.apk; push it first]\n"},
		{"echo hi > /data/local/tmp/corral-install.apk && pm install -r /data/local/tmp/corral-install.apk",
			"Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/local/tmp/corral-install.apk: not a zip archive]\n"},
	} {
		if got := sh(t, d, tc.line); got != tc.want {
			t.Errorf("%s\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
	d.RegisterAPK([]byte("hi\n"), "com.example.hi")
	for _, tc := range []struct{ line, want string }{
		{"pm install -r /data/local/tmp/corral-install.apk", "Success\n"},
		{"pm install /data/local/tmp/corral-install.apk", "Failure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install com.example.hi without first uninstalling.]\n"},
		{"pm list packages -3", "package:com.example.hi\n"},
		{"monkey -p com.example.hi -c android.intent.category.LAUNCHER 1 | grep Events", "Events injected: 1\n"},
		{"pm clear com.example.hi", "Success\n"},
		{"rm -f /data/local/tmp/corral-install.apk", ""},
		{"pm uninstall com.example.hi", "Success\n"},
		{"pm uninstall com.example.hi", "Failure [DELETE_FAILED_INTERNAL_ERROR]\n"},
	} {
		if got := sh(t, d, tc.line); got != tc.want {
			t.Errorf("%s\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
	if _, ok := d.File("/data/local/tmp/corral-install.apk"); ok {
		t.Error("rm -f left the file")
	}
}

func TestCommandLogBounded(t *testing.T) {
	var l cmdLog
	for i := range cmdLogSize + 10 {
		l.add(fmt.Sprint(i))
	}
	got := l.snapshot()
	if len(got) != cmdLogSize || got[0] != "10" || got[len(got)-1] != fmt.Sprint(cmdLogSize+9) {
		t.Errorf("ring holds %d, from %s to %s", len(got), got[0], got[len(got)-1])
	}
}

func TestFarm(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f, err := Start(ctx, 3, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range f.Devices() {
		seen[d.Serial()] = true
		if d.Phone().Info().Serial != d.Serial() {
			t.Errorf("phone serial %s on device %s", d.Phone().Info().Serial, d.Serial())
		}
	}
	if len(seen) != 3 {
		t.Errorf("serials %v", seen)
	}
	cancel()
	d := f.Devices()[0]
	if err := waitFor(func() bool { return d.Restart() == ErrClosed }); err != nil {
		t.Error("the farm outlived its context")
	}
	for _, bad := range []string{"127.0.0.1", "127.0.0.1:x", "127.0.0.1:65535"} {
		if _, err := Start(context.Background(), 2, bad); err == nil {
			t.Errorf("Start(2, %q) succeeded", bad)
		}
	}
}

// A farm given a port listens on it and the ports after it.
func TestFarmConsecutivePorts(t *testing.T) {
	var f *Farm
	var port int
	for attempt := 1; f == nil; attempt++ {
		port = freePort(t)
		var err error
		f, err = Start(context.Background(), 2, fmt.Sprintf("127.0.0.1:%d", port))
		switch {
		case err == nil:
		case errors.Is(err, syscall.EADDRINUSE) && attempt < 10: // the port after the free one was not
		default:
			t.Fatalf("Start on ports %d and %d (attempt %d): %v", port, port+1, attempt, err)
		}
	}
	defer f.Close()
	want := []string{fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("127.0.0.1:%d", port+1)}
	for i, d := range f.Devices() {
		if d.Serial() != want[i] {
			t.Errorf("device %d is %s, want %s", i, d.Serial(), want[i])
		}
	}
}
