package iossim

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// appRecord is an installed app as installation_proxy describes it.
type appRecord struct {
	bundleID, name, displayName, shortVersion, version, executable string
	appType                                                        string // "User" or "System"
	path                                                           string
	minOS                                                          string
}

// appleApps are the system apps of a phone whose Config names none.
var appleApps = []appRecord{
	{bundleID: "com.apple.Preferences", name: "Preferences", displayName: "Settings", executable: "Preferences"},
	{bundleID: "com.apple.mobilesafari", name: "MobileSafari", displayName: "Safari", executable: "MobileSafari"},
	{bundleID: "com.apple.MobileSMS", name: "MobileSMS", displayName: "Messages", executable: "MobileSMS"},
	{bundleID: "com.apple.mobileslideshow", name: "MobileSlideShow", displayName: "Photos", executable: "MobileSlideShow"},
	{bundleID: "com.apple.camera", name: "Camera", displayName: "Camera", executable: "Camera"},
}

// initialApps is the system apps (system; nil: appleApps) plus the configured user apps.
func initialApps(system, cfg []App) (map[string]*appRecord, error) {
	builtIn := appleApps
	if system != nil {
		builtIn = nil
		for _, a := range system {
			if a.BundleID == "" {
				return nil, fmt.Errorf("an app in Config.System has no BundleID (name %q)", a.Name)
			}
			name := executableName(defaultString(a.Name, a.BundleID[strings.LastIndex(a.BundleID, ".")+1:]))
			builtIn = append(builtIn, appRecord{bundleID: a.BundleID, name: name, displayName: defaultString(a.Name, name), executable: name})
		}
	}
	apps := map[string]*appRecord{}
	for _, s := range builtIn {
		if apps[s.bundleID] != nil {
			return nil, fmt.Errorf("system app %s is listed twice", s.bundleID)
		}
		s.appType, s.shortVersion, s.version = "System", "1.0", "1"
		s.path = "/Applications/" + s.executable + ".app"
		apps[s.bundleID] = &s
	}
	for _, a := range cfg {
		if a.BundleID == "" {
			return nil, fmt.Errorf("an app in Config.Apps has no BundleID (name %q)", a.Name)
		}
		if apps[a.BundleID] != nil {
			return nil, fmt.Errorf("app %s is listed twice, or is a system app", a.BundleID)
		}
		name := defaultString(a.Name, a.BundleID[strings.LastIndex(a.BundleID, ".")+1:])
		version := defaultString(a.Version, "1.0")
		apps[a.BundleID] = newUserApp(a.BundleID, name, name, version, version, executableName(name))
	}
	return apps, nil
}

func newUserApp(bundleID, name, displayName, shortVersion, version, executable string) *appRecord {
	return &appRecord{
		bundleID: bundleID, name: name, displayName: displayName,
		shortVersion: shortVersion, version: version, executable: executable,
		appType: "User",
		path:    "/private/var/containers/Bundle/Application/" + strings.ToUpper(uuid.NewString()) + "/" + executable + ".app",
		minOS:   "13.0",
	}
}

// executableName is a bundle name without what a file name should not have.
func executableName(name string) string {
	n := strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r < 0x20 {
			return -1
		}
		return r
	}, name)
	return defaultString(n, "App")
}

// Apps returns the user apps installed now, by bundle id.
func (d *Device) Apps() []App {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []App
	for _, a := range d.apps {
		if a.appType == "User" {
			out = append(out, App{BundleID: a.bundleID, Name: a.name, Version: a.shortVersion})
		}
	}
	slices.SortFunc(out, func(a, b App) int { return strings.Compare(a.BundleID, b.BundleID) })
	return out
}

// InstalledApps lists the bundle ids of every installed app, system and user, sorted: what
// installation_proxy's Browse of ApplicationType Any answers.
func (d *Device) InstalledApps() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Sorted(maps.Keys(d.apps))
}

// attributes is the app as installation_proxy lists it, restricted to attrs when given.
func (a *appRecord) attributes(attrs []string) map[string]any {
	m := map[string]any{
		"CFBundleIdentifier":         a.bundleID,
		"CFBundleName":               a.name,
		"CFBundleDisplayName":        a.displayName,
		"CFBundleShortVersionString": a.shortVersion,
		"CFBundleVersion":            a.version,
		"CFBundleExecutable":         a.executable,
		"CFBundlePackageType":        "APPL",
		"CFBundleSupportedPlatforms": []string{"iPhoneOS"},
		"ApplicationType":            a.appType,
		"Path":                       a.path,
		"UIDeviceFamily":             []uint64{1},
		"MinimumOSVersion":           defaultString(a.minOS, "16.0"),
		"UIFileSharingEnabled":       false,
		"IsAppClip":                  false,
	}
	if len(attrs) == 0 {
		return m
	}
	out := make(map[string]any, len(attrs))
	for _, k := range attrs {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// appsOfType lists apps of an installation_proxy ApplicationType ("User", "System", "Any" or
// empty for any), by bundle id so that browsing is stable.
func (d *Device) appsOfType(appType string) []*appRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*appRecord
	for _, id := range slices.Sorted(maps.Keys(d.apps)) {
		a := d.apps[id]
		if appType == "" || appType == "Any" || a.appType == appType {
			c := *a
			out = append(out, &c)
		}
	}
	return out
}

func (d *Device) lookupApp(bundleID string) *appRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a := d.apps[bundleID]; a != nil {
		c := *a
		return &c
	}
	return nil
}

// maxApps bounds installed apps, since installs come from any host.
const maxApps = 1000

// installApp adds or replaces a user app; it answers installation_proxy's error name, or "".
func (d *Device) installApp(a *appRecord) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	old := d.apps[a.bundleID]
	switch {
	case old != nil && old.appType == "System":
		return "InstallProhibited"
	case old == nil && len(d.apps) >= maxApps:
		return "InsufficientStorage"
	}
	d.apps[a.bundleID] = a
	return ""
}

// uninstallApp removes a user app; it answers installation_proxy's error name, or "".
func (d *Device) uninstallApp(bundleID string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	a := d.apps[bundleID]
	switch {
	case a == nil:
		return "ApplicationNotFound"
	case a.appType == "System":
		return "UninstallProhibited"
	}
	delete(d.apps, bundleID)
	return ""
}
