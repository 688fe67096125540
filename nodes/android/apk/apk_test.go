package apk

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestBuildThenRead(t *testing.T) {
	for _, m := range []Manifest{
		{Package: "com.example.app", VersionName: "1.2.3", VersionCode: 42},
		{Package: "org.test.nover"},
		{Package: "com.example.long", VersionName: string(bytes.Repeat([]byte("9"), 300)), VersionCode: 7}, // two-byte UTF-8 lengths
		{Package: "com.example.uni", VersionName: "2.0-β"},
	} {
		b, err := Build(m)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "x.apk")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p)
		if err != nil || got != m {
			t.Errorf("ReadFile of an APK built for %+v: %+v, %v", m, got, err)
		}
		got, err = ParseManifest(encodeManifest(m, true))
		if err != nil || got != m {
			t.Errorf("a UTF-8 string pool for %+v: %+v, %v", m, got, err)
		}
	}
}

func TestReadRefuses(t *testing.T) {
	zipOf := func(name string, data []byte) []byte {
		var b bytes.Buffer
		z := zip.NewWriter(&b)
		w, _ := z.Create(name)
		_, _ = w.Write(data)
		_ = z.Close()
		return b.Bytes()
	}
	notManifest := encodeManifest(Manifest{Package: "com.example.app"}, false)
	notManifest = bytes.Replace(notManifest, []byte("m\x00a\x00n\x00i\x00f\x00e\x00s\x00t\x00\x00"), []byte("m\x00a\x00n\x00i\x00f\x00e\x00s\x00s\x00\x00"), 1)
	for name, b := range map[string][]byte{
		"not a zip":             []byte("not an APK\n"),
		"no manifest":           zipOf("classes.dex", []byte("dex\n035")),
		"a text manifest":       zipOf(manifestName, []byte(`<manifest package="com.example.app"/>`)),
		"another first element": zipOf(manifestName, notManifest),
		"a bad package":         zipOf(manifestName, encodeManifest(Manifest{Package: "1com.example"}, false)),
		"one part":              zipOf(manifestName, encodeManifest(Manifest{Package: "example"}, false)),
		"cut short":             zipOf(manifestName, encodeManifest(Manifest{Package: "com.example.app"}, false)[:100]),
	} {
		if m, err := Read(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrNoManifest) {
			t.Errorf("%s: %+v, %v; want ErrNoManifest", name, m, err)
		}
	}
	if _, err := Build(Manifest{Package: "no"}); err == nil {
		t.Error("Build of a bad package name succeeded")
	}
}

func TestValidPackage(t *testing.T) {
	for s, want := range map[string]bool{
		"com.example.app": true, "a.b": true, "com.ex_1.A9": true,
		"": false, "com": false, "com.": false, ".com.x": false, "com..x": false, "com.1x": false, "com.x-y": false, "com.x y": false,
	} {
		if got := validPackage(s); got != want {
			t.Errorf("validPackage(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzParseManifest: any bytes give a manifest with a valid package name, or ErrNoManifest;
// never a panic.
func FuzzParseManifest(f *testing.F) {
	f.Add(encodeManifest(Manifest{Package: "com.example.app", VersionName: "1.0", VersionCode: 1}, false))
	f.Add(encodeManifest(Manifest{Package: "com.example.app", VersionName: "1.0", VersionCode: 1}, true))
	f.Add([]byte{3, 0, 8, 0, 8, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest(b)
		switch {
		case err != nil && !errors.Is(err, ErrNoManifest):
			t.Fatalf("error %v is not ErrNoManifest", err)
		case err == nil && !validPackage(m.Package):
			t.Fatalf("package %q accepted", m.Package)
		case len(m.VersionName) > 4*maxString:
			t.Fatalf("version name of %d bytes", len(m.VersionName))
		}
	})
}
