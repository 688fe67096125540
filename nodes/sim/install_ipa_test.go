package sim

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An iPhone's .ipa is no app for this Android phone: installing it is the caller's mistake
// (bad input) naming the file and what it is for, and nothing is installed, as a real phone's
// pm install refuses it. Before, it installed as its bundle id.
func TestAnIPAIsNoAppForAnAndroidPhone(t *testing.T) {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, err := z.Create("Payload/Hello.app/Info.plist")
	must(t, err)
	_, err = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>` +
		`<key>CFBundleIdentifier</key><string>org.example.hello</string>` +
		`<key>CFBundleShortVersionString</key><string>1.0</string></dict></plist>`))
	must(t, err)
	must(t, z.Close())
	path := filepath.Join(t.TempDir(), "Hello.ipa")
	must(t, os.WriteFile(path, b.Bytes(), 0o600))

	p := New("s")
	_, err = p.InstallApp(ctxT(t), path)
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), `"Hello.ipa" is an iOS app (org.example.hello)`) ||
		!strings.Contains(err.Error(), "Android") {
		t.Fatalf("installing an .ipa on an Android phone: %v", err)
	}
	if pkgs, _ := p.ListPackages(ctxT(t)); slices.Contains(pkgs, "org.example.hello") || len(pkgs) != len(packages()) {
		t.Fatalf("packages after a refused install: %v", pkgs)
	}
}
