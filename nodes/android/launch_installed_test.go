package android

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/android/apk"
	"github.com/corral-farm/corral/nodes/tools"
)

// runTool runs tool with args on d as the node does, through the tools.
func runTool(t *testing.T, d *Driver, tool string, args any) (tools.Output, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tools.DefaultOps()[tool].Run(t.Context(), &tools.Task{Driver: d, Args: raw})
}

// An app installed over the real adb server comes to the front when launched, as on a phone:
// app_install, app_launch, then get_foreground_app names it (not the launcher); app_terminate
// takes it away again. Before, app_launch answered launched and the launcher stayed in front.
func TestInstalledAppComesToTheFrontOverADB(t *testing.T) {
	dev, d := newDevice(t)
	const pkg = "com.example.shop"
	path := writeAPK(t, "shop.apk", apk.Manifest{Package: pkg, VersionName: "1.0", VersionCode: 1}, 0)
	foreground := func() string {
		t.Helper()
		out, err := runTool(t, d, "get_foreground_app", map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(out.Data)
		return string(b)
	}
	if _, err := runTool(t, d, "app_install", map[string]string{"appUrl": path}); err != nil {
		t.Fatal(err)
	}
	if _, err := runTool(t, d, "app_launch", map[string]string{"packageName": pkg}); err != nil {
		t.Fatal(err)
	}
	if got := foreground(); !strings.Contains(got, `"`+pkg+`"`) {
		t.Fatalf("after app_launch %s, get_foreground_app says %s", pkg, got)
	}
	if front, err := dev.Phone().ForegroundApp(t.Context()); err != nil || front != pkg {
		t.Fatalf("the phone shows %q (%v), want %s", front, err, pkg)
	}
	if _, err := runTool(t, d, "app_terminate", map[string]string{"packageName": pkg}); err != nil {
		t.Fatal(err)
	}
	if got := foreground(); strings.Contains(got, pkg) || !strings.Contains(got, "com.corral.launcher") {
		t.Fatalf("after app_terminate %s, get_foreground_app says %s", pkg, got)
	}
}

// An iPhone's .ipa is refused by the phone as a real one refuses it (no manifest to read), and
// the caller hears bad_input naming the file and the platform it is for. Before, the simulated
// phone installed it as com.corral.apk<hash>.
func TestAnIPAOnAnAndroidPhoneIsBadInput(t *testing.T) {
	dev, d := newDevice(t)
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, err := z.Create("Payload/Hello.app/Info.plist")
	if err == nil {
		_, err = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>` +
			`<key>CFBundleIdentifier</key><string>org.example.hello</string></dict></plist>`))
	}
	if err == nil {
		err = z.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "Hello.ipa")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = runTool(t, d, "app_install", map[string]string{"appUrl": path})
	if got := tools.ErrorCode(err); got != broker.CodeBadInput || !errors.Is(err, ErrAPKRefused) {
		t.Fatalf("app_install of an .ipa: code %s, want bad_input (%v)", got, err)
	}
	for _, want := range []string{"INSTALL_FAILED_INVALID_APK", "Hello.ipa", "iOS app (org.example.hello)", "Android"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("app_install of an .ipa: %v\nwant it to say %q", err, want)
		}
	}
	if got := dev.Installed(); len(got) != 0 {
		t.Errorf("the phone installed %q", got)
	}
}
