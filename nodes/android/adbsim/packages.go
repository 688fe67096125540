package adbsim

import (
	"bytes"
	"crypto/sha256"
	"slices"

	"github.com/corral-farm/corral/nodes/android/apk"
)

const (
	productName = "corral_sim"
	launcherPkg = "com.corral.launcher"
	systemUIPkg = "com.android.systemui"

	imeADB   = "com.android.adbkeyboard/.AdbIME"
	imeLatin = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
)

// helperPackages are preinstalled besides the phone's apps: the input methods and Clipper.
var helperPackages = []string{"com.android.adbkeyboard", "ca.zgrs.clipper",
	"com.google.android.inputmethod.latin", systemUIPkg}

// imes are the input methods installed, in `ime list -s` order.
var imes = []string{imeLatin, imeADB}

// installs are the packages installed with pm install, and the names tests gave to APK
// contents with RegisterAPK. Guarded by Device.mu.
type installs struct {
	installed map[string]string   // package -> the APK path it was installed from
	names     map[[32]byte]string // sha256 of an APK -> its package
}

func sortedUnion(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// RegisterAPK names the package that an APK with exactly this content installs as. Without
// it, an APK installs as the package its AndroidManifest.xml names (apk.Build makes one), and
// any other file is refused as a phone refuses it: a zip with no manifest to read (an iPhone's
// .ipa, say) with INSTALL_FAILED_INVALID_APK, anything else with INSTALL_PARSE_FAILED_NOT_APK.
func (d *Device) RegisterAPK(content []byte, pkg string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.apps.names == nil {
		d.apps.names = map[[32]byte]string{}
	}
	d.apps.names[sha256.Sum256(content)] = pkg
}

// Installed returns the packages installed with pm install, sorted.
func (d *Device) Installed() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]string, 0, len(d.apps.installed))
	for p := range d.apps.installed {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// packageOf names the package an APK installs as, or says why it is not an APK, in pm
// install's words: the name RegisterAPK gave its content, else the package its manifest names,
// as a phone reads it.
func (d *Device) packageOf(file string, content []byte) (pkg, failure string) {
	d.mu.Lock()
	name, ok := d.apps.names[sha256.Sum256(content)]
	d.mu.Unlock()
	if ok {
		return name, ""
	}
	m, err := apk.Read(bytes.NewReader(content), int64(len(content)))
	switch {
	case err == nil:
		return m.Package, ""
	case len(content) >= 4 && string(content[:4]) == "PK\x03\x04":
		return "", "INSTALL_FAILED_INVALID_APK: Failed to parse " + file + ": no AndroidManifest.xml that a package manager can read"
	}
	return "", "INSTALL_PARSE_FAILED_NOT_APK: Failed to parse " + file + ": not a zip archive"
}

// packages lists every package: the phone's, the helpers and the installed ones, sorted.
func (d *Device) packages() []string {
	return sortedUnion(d.builtin, d.Installed())
}

// isBuiltin says whether pkg came with the device (and so cannot be uninstalled).
func (d *Device) isBuiltin(pkg string) bool {
	_, ok := slices.BinarySearch(d.builtin, pkg)
	return ok
}

func (d *Device) isInstalled(pkg string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.apps.installed[pkg]
	return ok
}
