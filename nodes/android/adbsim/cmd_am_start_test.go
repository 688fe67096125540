package adbsim

import (
	"strings"
	"testing"
)

// An installed package comes to the front as on a phone, by monkey or am start, and leaves it
// by am force-stop, pm clear or pm uninstall; dumpsys window names it meanwhile. Before, monkey
// answered for it without changing the screen, and am start was an unknown command.
func TestInstalledPackageComesToTheFront(t *testing.T) {
	d := newDevice(t)
	if err := d.files.put("/data/local/tmp/shop.apk", File{Data: paddedAPK(t, "com.example.shop", 0), Mode: modeFile | 0o644}); err != nil {
		t.Fatal(err)
	}
	if got := sh(t, d, "pm install /data/local/tmp/shop.apk"); got != "Success\n" {
		t.Fatalf("pm install: %q", got)
	}
	focus := func() string {
		t.Helper()
		return sh(t, d, "dumpsys window | grep mCurrentFocus")
	}
	const shop = "  mCurrentFocus=Window{1a2b3c u0 com.example.shop/com.example.shop.MainActivity}\n"
	const home = "  mCurrentFocus=Window{1a2b3c u0 com.corral.launcher/com.corral.launcher.Launcher}\n"
	for _, tc := range []struct{ launch, end string }{
		{"monkey -p com.example.shop -c android.intent.category.LAUNCHER 1", "am force-stop com.example.shop"},
		{"am start -W -n com.example.shop/.MainActivity", "pm clear com.example.shop"},
		{"am start -a android.intent.action.MAIN -p com.example.shop", "pm uninstall com.example.shop"},
	} {
		sh(t, d, tc.launch)
		if got := focus(); got != shop {
			t.Fatalf("after %s: %q", tc.launch, got)
		}
		sh(t, d, tc.end)
		if got := focus(); got != home {
			t.Fatalf("after %s: %q", tc.end, got)
		}
	}
	if got := sh(t, d, "am start -n com.example.shop/.MainActivity"); !strings.Contains(got, "Error: Activity class {com.example.shop/.MainActivity} does not exist.") {
		t.Errorf("am start of an uninstalled package: %q", got)
	}
	if got := sh(t, d, "am start -n com.corral.notes/.MainActivity"); !strings.HasPrefix(got, "Starting: Intent { cmp=com.corral.notes/.MainActivity }") {
		t.Errorf("am start of Notes: %q", got)
	}
	if got := focus(); !strings.Contains(got, "com.corral.notes/") {
		t.Errorf("after am start of Notes: %q", got)
	}
}
