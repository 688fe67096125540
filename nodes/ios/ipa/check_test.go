package ipa

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"howett.net/plist"
)

// file is one entry of a zip made for a test: a symbolic link when link, stored uncompressed
// when store (so that its bytes can be damaged in place).
type file struct {
	name, data  string
	link, store bool
}

// zipFiles makes a zip of files, in order.
func zipFiles(t testing.TB, files ...file) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate}
		if f.store {
			h.Method = zip.Store
		}
		if f.link {
			h.SetMode(fs.ModeSymlink | 0o777)
		}
		w, err := z.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// damage flips a byte of what in b.
func damage(t testing.TB, b []byte, what string) []byte {
	t.Helper()
	i := bytes.Index(b, []byte(what))
	if i < 0 {
		t.Fatalf("%q is not in the zip", what)
	}
	b[i] ^= 0xff
	return b
}

func TestCheck(t *testing.T) {
	info := file{name: "Payload/A.app/Info.plist", data: string(infoPlist(t, plist.XMLFormat, map[string]any{"CFBundleIdentifier": "com.example.a"}))}
	exe := file{name: "Payload/A.app/A", data: strings.Repeat("machine code ", 1000)}
	for name, b := range map[string][]byte{
		"an app":          zipFiles(t, file{name: "Payload/"}, file{name: "Payload/A.app/"}, info, exe),
		"a link inside":   zipFiles(t, info, exe, file{name: "Payload/A.app/Frameworks/B.framework/B", data: "../../A", link: true}),
		"an unknown kind": zipFiles(t, info, exe, file{name: "Payload/A.app/odd", data: "x"}),
	} {
		if err := Check(t.Context(), bytes.NewReader(b), int64(len(b))); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, c := range []struct {
		name string
		zip  []byte
		want error
		says string
	}{
		{"not a zip", []byte("PK\x03\x04 but no more"), ErrNotZip, "not a zip archive"},
		{"no app", zipFiles(t, file{name: "A.app/Info.plist", data: info.data}), ErrNoApp, "no Payload/NAME.app/Info.plist"},
		{"an app without Info.plist", zipFiles(t, exe), ErrNoApp, "no Payload/NAME.app/Info.plist"},
		{"two apps", zipFiles(t, info, file{name: "Payload/B.app/Info.plist", data: info.data}), ErrTwoApps, "(Payload/A.app, Payload/B.app)"},
		{"dot-dot", zipFiles(t, info, file{name: "../evil", data: "x"}), ErrOutside, `entry "../evil" points outside`},
		{"dot-dot inside", zipFiles(t, info, file{name: "Payload/A.app/../../../evil", data: "x"}), ErrOutside, `"Payload/A.app/../../../evil"`},
		{"absolute", zipFiles(t, info, file{name: "/etc/evil", data: "x"}), ErrOutside, `"/etc/evil"`},
		{"backslash", zipFiles(t, info, file{name: `Payload\..\..\evil`, data: "x"}), ErrOutside, `points outside`},
		{"a link out", zipFiles(t, info, file{name: "Payload/A.app/l", data: "../../../x", link: true}), ErrOutside, `a link to "../../../x"`},
		{"an absolute link", zipFiles(t, info, file{name: "Payload/A.app/l", data: "/etc/passwd", link: true}), ErrOutside, `a link to "/etc/passwd"`},
		{"a stored entry damaged", damage(t, zipFiles(t, info, file{name: "Payload/A.app/A", data: "stored machine code", store: true}), "machine"),
			ErrDamaged, `entry "Payload/A.app/A" is damaged (zip: checksum error)`},
		{"Info.plist damaged", damage(t, zipFiles(t, file{name: info.name, data: info.data, store: true}, exe), "CFBundleIdentifier"),
			ErrDamaged, `entry "Payload/A.app/Info.plist" is damaged`},
	} {
		err := Check(t.Context(), bytes.NewReader(c.zip), int64(len(c.zip)))
		if !errors.Is(err, c.want) || !errors.Is(err, ErrBadIPA) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %v saying %q", c.name, err, c.want, c.says)
		}
	}
	// A check cut short is not the file's fault.
	b := zipFiles(t, info, exe)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Check(ctx, bytes.NewReader(b), int64(len(b))); !errors.Is(err, context.Canceled) || errors.Is(err, ErrBadIPA) {
		t.Errorf("cancelled: %v, want context.Canceled, not the file's fault", err)
	}
}

// FuzzCheck: any bytes are a good .ipa or an ErrBadIPA, never a panic.
func FuzzCheck(f *testing.F) {
	info := file{name: "Payload/A.app/Info.plist", data: "<plist/>"}
	f.Add(zipFiles(f, info, file{name: "Payload/A.app/A", data: "exe"}))
	f.Add(zipFiles(f, info, file{name: "Payload/A.app/l", data: "../../../x", link: true}))
	f.Add(zipFiles(f, info, file{name: "Payload/A.app/A", data: "exe", store: true}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := Check(t.Context(), bytes.NewReader(b), int64(len(b))); err != nil && !errors.Is(err, ErrBadIPA) {
			t.Fatalf("error %v is not ErrBadIPA", err)
		}
	})
}
