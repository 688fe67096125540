package iossim

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ios "github.com/danielpaulus/go-ios/ios"
	"github.com/danielpaulus/go-ios/ios/afc"
	"github.com/danielpaulus/go-ios/ios/installationproxy"
	"howett.net/plist"
)

func TestBrowseApps(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	var apps []App
	for i := range 12 { // more than one BrowsingApplications chunk
		apps = append(apps, App{BundleID: fmt.Sprintf("com.example.app%02d", i), Name: fmt.Sprintf("App %d", i), Version: "2.1"})
	}
	d := newDevice(t, Config{Apps: apps})
	h.Attach(d)
	dev := entry(t, d.UDID())

	ip, err := installationproxy.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer ip.Close()
	user, err := ip.BrowseUserApps()
	if err != nil {
		t.Fatal(err)
	}
	if len(user) != len(apps) {
		t.Fatalf("BrowseUserApps: %d apps, want %d", len(user), len(apps))
	}
	for i, a := range user {
		if a.CFBundleIdentifier() != apps[i].BundleID || a.CFBundleName() != apps[i].Name || a.CFBundleShortVersionString() != "2.1" ||
			a[installationproxy.ApplicationType] != "User" || !strings.HasSuffix(a.Path(), ".app") || a.CFBundleExecutable() == "" ||
			a[installationproxy.CFBundleDisplayName] != apps[i].Name || a[installationproxy.CFBundleVersion] != "2.1" {
			t.Errorf("app %d: %v, want %+v as User app", i, a, apps[i])
		}
	}
	all, err := ip.BrowseAllApps()
	if err != nil {
		t.Fatal(err)
	}
	ids := bundleIDs(all)
	for _, want := range []string{"com.apple.Preferences", "com.apple.mobilesafari", "com.example.app00"} {
		if !slices.Contains(ids, want) {
			t.Errorf("BrowseAllApps lacks %s: %v", want, ids)
		}
	}
	sys, err := ip.BrowseSystemApps()
	if err != nil {
		t.Fatal(err)
	}
	if len(sys) != len(all)-len(apps) || slices.Contains(bundleIDs(sys), "com.example.app00") {
		t.Errorf("BrowseSystemApps: %v", bundleIDs(sys))
	}
}

// TestInstallUninstall stages an .ipa with go-ios's AFC client, installs it with a raw
// installation_proxy Install (go-ios has no helper for it) and uninstalls it with go-ios.
func TestInstallUninstall(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{Apps: []App{{BundleID: "com.example.keep", Name: "Keep"}}})
	h.Attach(d)
	dev := entry(t, d.UDID())

	ipa := buildIPA(t, "com.example.foo", "Foo", "3.4", plist.BinaryFormat)
	stage(t, dev, "PublicStaging/foo.ipa", ipa)
	msgs := install(t, dev, "PublicStaging/foo.ipa")
	last := msgs[len(msgs)-1]
	if last["Status"] != "Complete" || last["Error"] != nil {
		t.Fatalf("Install ended with %v, want Status Complete", last)
	}
	if len(msgs) < 3 || msgs[0]["PercentComplete"] == nil || msgs[0]["Status"] == nil {
		t.Errorf("Install progress %v: want Status and PercentComplete messages before Complete", msgs)
	}
	want := App{BundleID: "com.example.foo", Name: "Foo", Version: "3.4"}
	if got := d.Apps(); !slices.Contains(got, want) || len(got) != 2 {
		t.Fatalf("Apps after Install: %+v, want %+v added", got, want)
	}
	ip, err := installationproxy.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer ip.Close()
	if user, _ := ip.BrowseUserApps(); !slices.Contains(bundleIDs(user), "com.example.foo") {
		t.Errorf("BrowseUserApps after Install: %v", bundleIDs(user))
	}
	if err := ip.Uninstall("com.example.foo"); err != nil {
		t.Fatalf("Uninstall: %v", err)
	}
	if got := d.Apps(); slices.ContainsFunc(got, func(a App) bool { return a.BundleID == "com.example.foo" }) {
		t.Fatalf("Apps after Uninstall: %+v", got)
	}
	if err := ip.Uninstall("com.example.foo"); err == nil {
		t.Error("Uninstall of an app not installed succeeded")
	}
	if err := ip.Uninstall("com.apple.Preferences"); err == nil {
		t.Error("Uninstall of a system app succeeded")
	}

	// An XML Info.plist, and an upgrade of an installed app, work as well.
	stage(t, dev, "PublicStaging/keep.ipa", buildIPA(t, "com.example.keep", "Keep", "9.0", plist.XMLFormat))
	if msgs := install(t, dev, "/PublicStaging/keep.ipa"); msgs[len(msgs)-1]["Status"] != "Complete" {
		t.Fatalf("upgrade: %v", msgs)
	}
	if got := d.Apps(); !slices.Contains(got, App{BundleID: "com.example.keep", Name: "Keep", Version: "9.0"}) {
		t.Fatalf("Apps after an upgrade: %+v", got)
	}
}

func TestInstallBadPackage(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{})
	h.Attach(d)
	dev := entry(t, d.UDID())

	noInfo := zipOf(t, map[string][]byte{"Payload/Foo.app/Foo": []byte("binary")})
	noID := buildIPA(t, "", "Foo", "1.0", plist.XMLFormat)
	stage(t, dev, "PublicStaging/junk.ipa", []byte("this is not a zip"))
	stage(t, dev, "PublicStaging/noinfo.ipa", noInfo)
	stage(t, dev, "PublicStaging/noid.ipa", noID)
	for _, c := range []struct{ pkg, wantErr string }{
		{"PublicStaging/junk.ipa", "PackageExtractionFailed"},
		{"PublicStaging/missing.ipa", "PackageExtractionFailed"},
		{"PublicStaging/noinfo.ipa", "PackageInspectionFailed"},
		{"PublicStaging/noid.ipa", "PackageInspectionFailed"},
	} {
		msgs := install(t, dev, c.pkg)
		last := msgs[len(msgs)-1]
		desc, _ := last["ErrorDescription"].(string)
		if last["Error"] != c.wantErr || desc == "" || len(msgs) != 1 {
			t.Errorf("Install %s: %v, want only Error %s with an ErrorDescription", c.pkg, msgs, c.wantErr)
		}
	}
	if got := d.Apps(); len(got) != 0 {
		t.Errorf("bad packages installed %+v", got)
	}
}

// TestAFC uses go-ios's AFC client over ConnectToService: directories, Push, Stat, List,
// reading back, DeviceInfo and removal.
func TestAFC(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{})
	h.Attach(d)
	dev := entry(t, d.UDID())
	conn, err := ios.ConnectToService(dev, "com.apple.afc")
	if err != nil {
		t.Fatal(err)
	}
	c := afc.NewFromConn(conn)
	defer c.Close()

	if err := c.MkDir("PublicStaging/deep/er"); err != nil {
		t.Fatal(err)
	}
	if info, err := c.Stat("PublicStaging/deep"); err != nil || !info.IsDir() {
		t.Fatalf("Stat of a made directory: %+v, %v", info, err)
	}
	src := filepath.Join(t.TempDir(), "hello.txt")
	content := bytes.Repeat([]byte("hello, phone\n"), 10_000) // several 32 KiB writes
	if err := os.WriteFile(src, content, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Push(src, "PublicStaging"); err != nil { // into a directory: keeps the name
		t.Fatal(err)
	}
	info, err := c.Stat("PublicStaging/hello.txt")
	if err != nil || info.Size != int64(len(content)) || info.IsDir() {
		t.Fatalf("Stat: %+v, %v; want a %d-byte file", info, err, len(content))
	}
	names, err := c.List("PublicStaging")
	if err != nil || !slices.Equal(names, []string{"deep", "hello.txt"}) {
		t.Fatalf("List: %v, %v", names, err)
	}
	dst := filepath.Join(t.TempDir(), "back.txt")
	if err := c.Pull("PublicStaging/hello.txt", dst); err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(dst); !bytes.Equal(back, content) {
		t.Fatalf("pulled %d bytes, differing from the %d pushed", len(back), len(content))
	}
	if di, err := c.DeviceInfo(); err != nil || di.Model != "iPhone12,8" || di.FreeBytes == 0 || di.BlockSize == 0 {
		t.Errorf("DeviceInfo: %+v, %v", di, err)
	}
	if _, err := c.Stat("PublicStaging/nope"); err == nil || !strings.Contains(err.Error(), "code: 8") {
		t.Errorf("Stat of a missing file: %v, want ObjectNotFound (8)", err)
	}
	if err := c.Remove("PublicStaging"); err == nil {
		t.Error("Remove of a non-empty directory succeeded")
	}
	if err := c.RemoveAll("PublicStaging"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stat("PublicStaging/hello.txt"); err == nil {
		t.Error("file still there after RemoveAll")
	}
}

func bundleIDs(apps []installationproxy.AppInfo) []string {
	var ids []string
	for _, a := range apps {
		ids = append(ids, a.CFBundleIdentifier())
	}
	return ids
}

// buildIPA makes an .ipa: Payload/NAME.app with an Info.plist and an executable.
func buildIPA(t *testing.T, bundleID, name, version string, format int) []byte {
	t.Helper()
	info := map[string]any{"CFBundleName": name, "CFBundleShortVersionString": version, "CFBundleVersion": version,
		"CFBundleExecutable": name, "MinimumOSVersion": "15.0"}
	if bundleID != "" {
		info["CFBundleIdentifier"] = bundleID
	}
	b, err := plist.Marshal(info, format)
	if err != nil {
		t.Fatal(err)
	}
	return zipOf(t, map[string][]byte{
		"Payload/" + name + ".app/Info.plist": b,
		"Payload/" + name + ".app/" + name:    []byte("\xcf\xfa\xed\xfe not really Mach-O"),
	})
}

func zipOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// stage uploads data with go-ios's AFC client, as an installer stages an .ipa.
func stage(t *testing.T, dev ios.DeviceEntry, path string, data []byte) {
	t.Helper()
	c, err := afc.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.MkDir("PublicStaging"); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteToFile(bytes.NewReader(data), path); err != nil {
		t.Fatal(err)
	}
	if info, err := c.Stat(path); err != nil || info.Size != int64(len(data)) {
		t.Fatalf("staged %s: %+v, %v; want %d bytes", path, info, err, len(data))
	}
}

// install sends installation_proxy's Install over go-ios's service connection and returns every
// message up to the final one.
func install(t *testing.T, dev ios.DeviceEntry, pkg string) []map[string]any {
	t.Helper()
	conn, err := ios.ConnectToService(dev, "com.apple.mobile.installation_proxy")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	codec := ios.NewPlistCodec()
	b, err := codec.Encode(map[string]any{"Command": "Install", "PackagePath": pkg,
		"ClientOptions": map[string]any{"PackageType": "Developer"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Send(b); err != nil {
		t.Fatal(err)
	}
	var msgs []map[string]any
	for {
		resp := within(t, "an installation_proxy message", func() []byte { r, _ := codec.Decode(conn.Reader()); return r })
		m, err := ios.ParsePlist(resp)
		if err != nil {
			t.Fatalf("installation_proxy sent %q: %v", resp, err)
		}
		msgs = append(msgs, m)
		if m["Status"] == "Complete" || m["Error"] != nil {
			return msgs
		}
	}
}

// TestLookup asks installation_proxy for apps by bundle id, with only some attributes, over a
// raw service connection (go-ios has no helper for Lookup).
func TestLookup(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{Apps: []App{{BundleID: "com.example.a", Name: "A", Version: "1.2"}, {BundleID: "com.example.b"}}})
	h.Attach(d)
	conn, err := ios.ConnectToService(entry(t, d.UDID()), "com.apple.mobile.installation_proxy")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	codec := ios.NewPlistCodec()
	b, _ := codec.Encode(map[string]any{"Command": "Lookup", "ClientOptions": map[string]any{
		"BundleIDs":        []string{"com.example.a", "com.apple.mobilesafari", "com.example.nope"},
		"ReturnAttributes": []string{"CFBundleIdentifier", "CFBundleShortVersionString"},
	}})
	if err := conn.Send(b); err != nil {
		t.Fatal(err)
	}
	resp, err := codec.Decode(conn.Reader())
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ios.ParsePlist(resp)
	res, _ := m["LookupResult"].(map[string]any)
	a, _ := res["com.example.a"].(map[string]any)
	if m["Status"] != "Complete" || len(res) != 2 || res["com.apple.mobilesafari"] == nil || len(a) != 2 || a["CFBundleShortVersionString"] != "1.2" {
		t.Fatalf("Lookup: %v; want com.example.a and Safari with two attributes each", m)
	}
}

// Config.System replaces Apple's apps: installation_proxy lists the named ones as System apps
// (and not Apple's), they cannot be uninstalled, and InstalledApps lists them with the user apps.
func TestSystemAppsOfTheConfig(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{System: []App{{BundleID: "com.corral.notes", Name: "Notes"}}, Apps: []App{{BundleID: "com.example.one"}}})
	h.Attach(d)
	ip, err := installationproxy.New(entry(t, d.UDID()))
	if err != nil {
		t.Fatal(err)
	}
	defer ip.Close()
	sys, err := ip.BrowseSystemApps()
	if err != nil || len(sys) != 1 || sys[0].CFBundleIdentifier() != "com.corral.notes" || sys[0][installationproxy.ApplicationType] != "System" ||
		sys[0][installationproxy.CFBundleDisplayName] != "Notes" {
		t.Fatalf("BrowseSystemApps: %v, %v", sys, err)
	}
	if err := ip.Uninstall("com.corral.notes"); err == nil {
		t.Error("Uninstall of a system app succeeded")
	}
	if got := d.InstalledApps(); !slices.Equal(got, []string{"com.corral.notes", "com.example.one"}) {
		t.Errorf("InstalledApps: %v", got)
	}
	if _, err := NewDevice(Config{System: []App{{Name: "nameless"}}}); err == nil {
		t.Error("a system app without a bundle id was taken")
	}
}
