package ipa

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"howett.net/plist"
)

// zipOf makes a zip of the given files.
func zipOf(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for name, data := range files {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// infoPlist encodes an Info.plist in format (plist.XMLFormat or plist.BinaryFormat).
func infoPlist(t testing.TB, format int, m map[string]any) []byte {
	t.Helper()
	b, err := plist.Marshal(m, format)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadFile(t *testing.T) {
	info := map[string]any{
		"CFBundleIdentifier": "com.example.hello", "CFBundleShortVersionString": "1.2.3", "CFBundleVersion": "42",
		"CFBundleName": "Hello", "UIDeviceFamily": []int{1, 2}, "UIRequiredDeviceCapabilities": map[string]any{"arm64": true},
		"CFBundleIcons": map[string]any{"CFBundlePrimaryIcon": map[string]any{"CFBundleIconFiles": []string{"AppIcon60x60"}}},
	}
	want := Info{BundleID: "com.example.hello", Version: "1.2.3", Build: "42"}
	for name, format := range map[string]int{"xml": plist.XMLFormat, "binary": plist.BinaryFormat} {
		b := zipOf(t, map[string][]byte{
			"Payload/Hello.app/Info.plist":                 infoPlist(t, format, info),
			"Payload/Hello.app/Hello":                      []byte("\xcf\xfa\xed\xfe"),
			"Payload/Hello.app/PlugIns/W.appex/Info.plist": infoPlist(t, format, map[string]any{"CFBundleIdentifier": "com.example.hello.widget"}),
		})
		p := filepath.Join(t.TempDir(), "Hello.ipa")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadFile(p); err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", name, got, err, want)
		}
	}
	// Unicode in a binary plist is UTF-16; the version may be absent.
	b := infoPlist(t, plist.BinaryFormat, map[string]any{"CFBundleIdentifier": "com.example.uni", "CFBundleName": "Héllo"})
	if got, err := ParseInfoPlist(b); err != nil || got != (Info{BundleID: "com.example.uni"}) {
		t.Errorf("no version: %+v, %v", got, err)
	}
	b = infoPlist(t, plist.BinaryFormat, map[string]any{"CFBundleIdentifier": "com.example.uni", "CFBundleShortVersionString": "2.0-β"})
	if got, err := ParseInfoPlist(b); err != nil || got.Version != "2.0-β" {
		t.Errorf("a UTF-16 version: %+v, %v", got, err)
	}
}

func TestReadRefuses(t *testing.T) {
	good := infoPlist(t, plist.XMLFormat, map[string]any{"CFBundleIdentifier": "com.example.app"})
	for name, b := range map[string][]byte{
		"not a zip":      []byte("root:x:0:0:root:/root:/bin/bash\n"),
		"no Info.plist":  zipOf(t, map[string][]byte{"Payload/A.app/A": []byte("bin")}),
		"not in Payload": zipOf(t, map[string][]byte{"A.app/Info.plist": good}),
		"two apps":       zipOf(t, map[string][]byte{"Payload/A.app/Info.plist": good, "Payload/B.app/Info.plist": good}),
		"no bundle id":   zipOf(t, map[string][]byte{"Payload/A.app/Info.plist": infoPlist(t, plist.XMLFormat, map[string]any{"CFBundleName": "A"})}),
		"a bad bundle id": zipOf(t, map[string][]byte{"Payload/A.app/Info.plist": infoPlist(t, plist.BinaryFormat,
			map[string]any{"CFBundleIdentifier": "com.example/../x"})}),
		"a number id": zipOf(t, map[string][]byte{"Payload/A.app/Info.plist": infoPlist(t, plist.BinaryFormat, map[string]any{"CFBundleIdentifier": 7})}),
		"not a plist": zipOf(t, map[string][]byte{"Payload/A.app/Info.plist": []byte("{CFBundleIdentifier = x;}")}),
		"cut short":   zipOf(t, map[string][]byte{"Payload/A.app/Info.plist": infoPlist(t, plist.BinaryFormat, map[string]any{"CFBundleIdentifier": "com.example.app"})[:30]}),
	} {
		if in, err := Read(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrNoInfo) {
			t.Errorf("%s: %+v, %v; want ErrNoInfo", name, in, err)
		}
	}
}

// FuzzParseInfoPlist: any bytes give a valid bundle id or ErrNoInfo; never a panic.
func FuzzParseInfoPlist(f *testing.F) {
	m := map[string]any{"CFBundleIdentifier": "com.example.app", "CFBundleShortVersionString": "1.0", "CFBundleVersion": "1",
		"UIDeviceFamily": []int{1}, "CFBundleName": "Ünïcode"}
	f.Add(infoPlist(f, plist.BinaryFormat, m))
	f.Add(infoPlist(f, plist.XMLFormat, m))
	f.Add([]byte("bplist00" + strings.Repeat("\x00", 32)))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ParseInfoPlist(b)
		switch {
		case err != nil && !errors.Is(err, ErrNoInfo):
			t.Fatalf("error %v is not ErrNoInfo", err)
		case err == nil && !validBundleID(in.BundleID):
			t.Fatalf("bundle id %q accepted", in.BundleID)
		case uint64(len(in.Version)) > 4*maxValue || uint64(len(in.Build)) > 4*maxValue:
			t.Fatalf("version of %d bytes", len(in.Version))
		}
	})
}
