package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/corral-farm/corral/nodes/android/apk"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios/ipa"
)

// Defaults of the system facts a phone reports.
const (
	DefaultDensity = 420 // dpi
	DefaultIME     = "com.android.inputmethod.latin/.LatinIME"
	maxExtra       = 256 // packages InstallApp can add
)

// imes are the input methods a phone has.
var imes = []string{DefaultIME, "com.android.adbkeyboard/.AdbIME"}

// allPackages returns every installed package, sorted. Callers hold p.mu.
func (p *Phone) allPackages() []string {
	if len(p.extra) == 0 {
		return packages()
	}
	out := append(packages(), p.extra...)
	slices.Sort(out)
	return slices.Compact(out)
}

// isInstalled reports whether pkg is installed. Callers hold p.mu.
func (p *Phone) isInstalled(pkg string) bool {
	return pkg == launcherPkg || appByPkg(pkg) >= 0 || slices.Contains(p.extra, pkg)
}

// appOf names the app an app file installs, as a phone reads it: the package and version in an
// APK's manifest. A file that has none installs as its base name without the extension, so
// /tmp/com.example.app.apk installs com.example.app; an iPhone's app (an .ipa with an
// Info.plist) is no app for this phone, which says so in failure.
func appOf(path string) (app device.InstalledApp, failure string) {
	if m, err := apk.ReadFile(path); err == nil {
		return device.InstalledApp{ID: m.Package, Version: m.VersionName}, ""
	}
	if in, err := ipa.ReadFile(path); err == nil {
		return device.InstalledApp{}, fmt.Sprintf("%s is an iOS app (%s), not an APK: this phone runs Android; install it on an iPhone, or give the app's .apk here",
			strconv.Quote(filepath.Base(path)), in.BundleID)
	}
	return device.InstalledApp{ID: packageOf(path)}, ""
}

// packageOf names the package an app file installs by its name: its base name without the
// extension.
func packageOf(path string) string {
	name := filepath.Base(path)
	if i := strings.LastIndexAny(name, `/\`); i >= 0 { // a Windows path on another OS
		name = name[i+1:]
	}
	for _, ext := range []string{".apk", ".apks", ".xapk", ".ipa"} {
		if strings.HasSuffix(strings.ToLower(name), ext) {
			return name[:len(name)-len(ext)]
		}
	}
	return name
}

// validPackage reports whether s looks like an Android package name: dot-separated parts of
// letters, digits and '_', each starting with a letter.
func validPackage(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" || !(part[0] >= 'a' && part[0] <= 'z' || part[0] >= 'A' && part[0] <= 'Z') {
			return false
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				return false
			}
		}
	}
	return true
}

// InstallApp installs the app file at localPath, a file on this machine, as the app it names
// (appOf): the package in its manifest, else its base name without .apk (so a file
// /tmp/com.example.app.apk that is no APK installs com.example.app); an iPhone's .ipa is
// refused. Installing an installed package again is a reinstall and succeeds. An installed
// package launches on a plain page of its own.
func (p *Phone) InstallApp(ctx context.Context, localPath string) (device.InstalledApp, error) {
	defer p.track()()
	const op = "install app"
	if err := p.begin(ctx, op); err != nil {
		return device.InstalledApp{}, err
	}
	fi, err := os.Stat(localPath)
	if err != nil || !fi.Mode().IsRegular() {
		return device.InstalledApp{}, p.wrap(op, ErrNoFile, strconv.Quote(localPath)+" is not a file on this machine")
	}
	app, failure := appOf(localPath)
	pkg := app.ID
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add("install " + pkg)
	switch {
	case failure != "":
		return device.InstalledApp{}, p.wrap(op, ErrBadInput, failure)
	case !validPackage(pkg):
		return device.InstalledApp{}, p.wrap(op, ErrBadInput, fmt.Sprintf("give an APK, or a file named after its package such as com.example.app.apk; %q is not a package name", pkg))
	case p.isInstalled(pkg):
		return app, nil
	case len(p.extra) >= maxExtra:
		return device.InstalledApp{}, p.wrap(op, ErrStorageFull, fmt.Sprintf("%d apps are installed already; uninstall some", maxExtra))
	}
	p.extra = append(p.extra, pkg)
	slices.Sort(p.extra)
	return app, nil
}

// UninstallApp removes a package InstallApp installed. The built-in apps and the launcher are
// system apps: uninstalling them fails, as on a phone.
func (p *Phone) UninstallApp(ctx context.Context, pkg string) error {
	defer p.track()()
	const op = "uninstall app"
	if err := p.begin(ctx, op); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add("uninstall " + pkg)
	if !p.isInstalled(pkg) {
		return p.unknownPackage(op, pkg)
	}
	i := slices.Index(p.extra, pkg)
	if i < 0 {
		return p.wrap(op, ErrSystemApp, strconv.Quote(pkg)+" is a system app and cannot be uninstalled; app_clear clears its data")
	}
	p.stop(pkg)
	p.extra = slices.Delete(p.extra, i, i+1)
	if len(p.extra) == 0 {
		p.extra = nil
	}
	return nil
}

// ClearApp clears pkg's data, as `pm clear` does: the app is stopped first (its pages leave the
// back stack), and Notes loses its note, Music stops playing. The launcher's data cleared sends
// the phone home.
func (p *Phone) ClearApp(ctx context.Context, pkg string) error {
	defer p.track()()
	const op = "clear app"
	if err := p.begin(ctx, op); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add("clear " + pkg)
	if !p.isInstalled(pkg) {
		return p.unknownPackage(op, pkg)
	}
	p.st.toast = ""
	p.stop(pkg)
	switch pkg {
	case launcherPkg:
		if !p.st.locked {
			p.st.goHome()
		}
	case apps[appNotes].pkg:
		p.st.note = ""
	}
	return nil
}

// ForegroundApp names the package in front: the system UI while the phone is locked, the
// launcher on the home screen, else the app whose page shows.
func (p *Phone) ForegroundApp(ctx context.Context) (string, error) {
	defer p.track()()
	if err := p.begin(ctx, "foreground app"); err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.st.locked {
		return systemPkg, nil
	}
	return p.st.cur.pkg(), nil
}

// SetIME selects an input method: com.android.inputmethod.latin/.LatinIME (the default) or
// com.android.adbkeyboard/.AdbIME.
func (p *Phone) SetIME(ctx context.Context, ime string) error {
	defer p.track()()
	const op = "set ime"
	if err := p.begin(ctx, op); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add("ime " + ime)
	if !slices.Contains(imes, ime) {
		return p.wrap(op, ErrUnknownIME, fmt.Sprintf("%q cannot be selected; the phone has %s", ime, strings.Join(imes, ", ")))
	}
	p.ime = ime
	return nil
}

// IME returns the selected input method.
func (p *Phone) IME() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ime
}

// SetClipboard puts text on the clipboard.
func (p *Phone) SetClipboard(ctx context.Context, text string) error {
	defer p.track()()
	if err := p.begin(ctx, "set clipboard"); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add("clipboard " + strings.TrimPrefix(textLogLine(text), "text "))
	p.clipboard = text
	return nil
}

// Clipboard returns what the clipboard holds.
func (p *Phone) Clipboard() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clipboard
}

// Note returns what the note in Notes holds.
func (p *Phone) Note() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.note
}

// Density returns the screen density in dpi: 420 unless WithDensity says otherwise.
func (p *Phone) Density(ctx context.Context) (int, error) {
	defer p.track()()
	if err := p.begin(ctx, "density"); err != nil {
		return 0, err
	}
	return p.density, nil
}

// Status reports the battery (always full and charging over USB), the lock and the input
// method.
func (p *Phone) Status(ctx context.Context) (map[string]string, error) {
	defer p.track()()
	if err := p.begin(ctx, "status"); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return map[string]string{
		"battery_level": "100",
		"charging":      "true",
		"power_source":  "usb",
		"locked":        strconv.FormatBool(p.st.locked),
		"ime":           p.ime,
	}, nil
}
