package ios

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// entry is one file of a zip made for a test: a symbolic link when link, stored uncompressed
// when store (so that its bytes can be damaged in place).
type entry struct {
	name, data  string
	link, store bool
}

// zipOf makes a zip of entries, in order.
func zipOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.store {
			h.Method = zip.Store
		}
		if e.link {
			h.SetMode(fs.ModeSymlink | 0o777)
		}
		w, err := z.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// appPlist is an Info.plist of bundle id com.example.bad.
const appPlist = `<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>` +
	`<key>CFBundleIdentifier</key><string>com.example.bad</string></dict></plist>`

// An .ipa that is a zip but that installd could not unpack (no app in Payload/, a damaged
// entry, an entry or a link pointing outside the archive) is the caller's bad input, refused on
// the node before the copy, and says what is wrong and what to do. It was a driver_error
// (installd's PackageExtractionFailed or PackageInspectionFailed after the copy), or, for what
// installd's Info.plist reading does not meet, an install.
func TestUnpackableIPAsAreBadInput(t *testing.T) {
	sims, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	plist := entry{name: "Payload/Bad.app/Info.plist", data: appPlist}
	damaged := zipOf(t, plist, entry{name: "Payload/Bad.app/Bad", data: "the app's executable", store: true})
	i := bytes.Index(damaged, []byte("executable"))
	damaged[i] ^= 0xff // the entry's bytes no longer match its checksum
	for _, c := range []struct {
		name string
		zip  []byte
		says []string
	}{
		{"no app", zipOf(t, entry{name: "Bad.app/Info.plist", data: appPlist}),
			[]string{"not an .ipa", "no Payload/NAME.app/Info.plist", "Xcode exports"}},
		{"two apps", zipOf(t, plist, entry{name: "Payload/Two.app/Info.plist", data: appPlist}),
			[]string{"not an .ipa", "more than one app", "Payload/Bad.app, Payload/Two.app", "Xcode exports"}},
		{"a damaged entry", damaged,
			[]string{"cannot be unpacked", `entry "Payload/Bad.app/Bad" is damaged`, "checksum", "download the .ipa again"}},
		{"an entry outside", zipOf(t, plist, entry{name: "Payload/Bad.app/../../evil", data: "x"}),
			[]string{"cannot be unpacked", `entry "Payload/Bad.app/../../evil" points outside the archive`, "rebuild it with Xcode"}},
		{"an absolute entry", zipOf(t, plist, entry{name: "/tmp/evil", data: "x"}),
			[]string{"cannot be unpacked", `"/tmp/evil" points outside`, "rebuild it"}},
		{"a link outside", zipOf(t, plist, entry{name: "Payload/Bad.app/etc", data: "../../../etc", link: true}),
			[]string{"cannot be unpacked", `a link to "../../../etc", points outside`, "rebuild it"}},
	} {
		path := writeFile(t, "bad.ipa", c.zip)
		_, err := tools.DefaultOps()["app_install"].Run(t.Context(), &tools.Task{Driver: d, Args: json.RawMessage(`{"appUrl":"` + path + `"}`)})
		if err == nil {
			t.Errorf("%s: installed", c.name)
			continue
		}
		if got := tools.ErrorCode(err); got != broker.CodeBadInput {
			t.Errorf("%s: code %s, want %s (%v)", c.name, got, broker.CodeBadInput, err)
		}
		for _, s := range c.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q does not say %q", c.name, err, s)
			}
		}
	}
	if hasApp(sims.Devices()[0].Apps(), "com.example.bad") {
		t.Error("a bad .ipa was installed")
	}
	// A link inside the app, and an .ipa as Xcode makes it, install.
	good := zipOf(t, plist, entry{name: "Payload/Bad.app/Bad", data: "exe"}, entry{name: "Payload/Bad.app/Current", data: "Bad", link: true})
	if _, err := d.InstallApp(t.Context(), writeFile(t, "good.ipa", good)); err != nil {
		t.Fatalf("an .ipa with a link inside it: %v", err)
	}
}
