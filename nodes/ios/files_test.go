package ios

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/corral-farm/corral/nodes/ios/iossim"
)

// writeIPA writes an .ipa holding an app with the given bundle id.
func writeIPA(t *testing.T, bundleID, name string) string {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, err := z.Create("Payload/" + name + ".app/Info.plist")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>` +
		`<key>CFBundleIdentifier</key><string>` + bundleID + `</string><key>CFBundleName</key><string>` + name + `</string>` +
		`<key>CFBundleShortVersionString</key><string>1.0</string><key>CFBundleVersion</key><string>1</string>` +
		`<key>CFBundleExecutable</key><string>` + name + `</string></dict></plist>`))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, name+".ipa", b.Bytes())
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func contains(s []string, v string) bool { return slices.Contains(s, v) }

func hasApp(apps []iossim.App, id string) bool {
	return slices.ContainsFunc(apps, func(a iossim.App) bool { return a.BundleID == id })
}
