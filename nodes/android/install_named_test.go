package android

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/android/apk"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// writeAPK writes an APK of m named name, padded with a stored classes.dex of pad bytes.
func writeAPK(t *testing.T, name string, m apk.Manifest, pad int) string {
	t.Helper()
	built, err := apk.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(built), int64(len(built)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, f := range zr.File {
		if err := z.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	w, err := z.CreateHeader(&zip.FileHeader{Name: "classes.dex", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(w, bytes.NewReader(make([]byte, pad)), int64(pad)); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// An APK whose manifest the driver cannot read is named by the package `pm list packages`
// shows after the install and did not before; a reinstall of it stays unnamed.
func TestInstallNamesAnUnreadableAPKFromTheList(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	content := append([]byte("PK\x03\x04"), make([]byte, 1<<10)...) // a zip to the phone, no manifest to the driver
	dev.RegisterAPK(content, "com.example.opaque")
	path := filepath.Join(t.TempDir(), "build-17.apk")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	var app device.InstalledApp
	got := newCommands(t, dev, func() (err error) { app, err = d.InstallApp(ctx, path); return err })
	want := []string{"pm list packages", "pm install -r " + installPath, "rm -f " + installPath, "pm list packages"}
	if !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
	if app != (device.InstalledApp{ID: "com.example.opaque"}) {
		t.Errorf("installed %+v, want com.example.opaque", app)
	}
	app, err := d.InstallApp(ctx, path)
	if err != nil || app != (device.InstalledApp{}) {
		t.Errorf("a reinstall named %+v, %v; want nothing (nothing new in the list)", app, err)
	}
}

// app_install through the tools, the driver and the real adb server names the package and
// version the APK's manifest gives, whatever the file is called; app_launch takes that name.
func TestAppInstallNamesThePackageOverADB(t *testing.T) {
	dev, d := newDevice(t)
	path := writeAPK(t, "shop-release.apk", apk.Manifest{Package: "com.example.shop", VersionName: "2.4.1", VersionCode: 241}, 64<<10)
	run := func(tool string, args any) tools.Output {
		t.Helper()
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		out, err := tools.DefaultOps()[tool].Run(t.Context(), &tools.Task{Driver: d, Args: raw})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return out
	}
	r := run("app_install", map[string]string{"appUrl": path}).Data.(tools.AppInstallResult)
	if r.PackageName != "com.example.shop" || r.Version != "2.4.1" || !strings.HasPrefix(r.Message, "installed com.example.shop 2.4.1 from ") {
		t.Fatalf("app_install: %+v; want com.example.shop 2.4.1 named", r)
	}
	if !slices.Contains(dev.Installed(), "com.example.shop") {
		t.Fatalf("the phone installed %q", dev.Installed())
	}
	run("app_launch", map[string]string{"packageName": r.PackageName})
}
