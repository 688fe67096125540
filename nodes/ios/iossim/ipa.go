package iossim

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"
)

// installError is an installation_proxy failure: its Error name and ErrorDescription.
type installError struct {
	name, description string
}

// appFromPackage reads the app a staged package holds: an .ipa file (a zip with
// Payload/NAME.app/Info.plist), an unpacked NAME.app directory, or a directory with
// Payload/NAME.app in it, as installd accepts them.
func (d *Device) appFromPackage(pkgPath string) (*appRecord, *installError) {
	p, code := cleanPath(pkgPath)
	if code != afcOK || pkgPath == "" {
		return nil, &installError{"PackageExtractionFailed", fmt.Sprintf("Invalid PackagePath %q", pkgPath)}
	}
	if d.fs.isDir(p) {
		return d.appFromDir(p)
	}
	data, ok := d.fs.readFile(p)
	if !ok {
		return nil, &installError{"PackageExtractionFailed",
			fmt.Sprintf("Could not open %s: no such file; stage the .ipa through AFC first (e.g. PublicStaging/app.ipa)", pkgPath)}
	}
	return appFromIPA(data)
}

// appFromIPA reads an .ipa's Info.plist, and nothing else of it.
func appFromIPA(data []byte) (*appRecord, *installError) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, &installError{"PackageExtractionFailed", fmt.Sprintf("Failed to extract package: not a zip archive (%v)", err)}
	}
	var info *zip.File
	for _, f := range zr.File {
		dir, file := path.Split(f.Name)
		parts := strings.Split(strings.TrimSuffix(dir, "/"), "/")
		if file == "Info.plist" && len(parts) == 2 && parts[0] == "Payload" && strings.HasSuffix(parts[1], ".app") {
			if info != nil {
				return nil, &installError{"PackageInspectionFailed", "Found more than one app bundle in Payload/"}
			}
			info = f
		}
	}
	if info == nil {
		return nil, &installError{"PackageInspectionFailed", "Failed to find an app bundle: the package has no Payload/NAME.app/Info.plist"}
	}
	rc, err := info.Open()
	if err != nil {
		return nil, &installError{"PackageExtractionFailed", fmt.Sprintf("Failed to extract %s: %v", info.Name, err)}
	}
	defer rc.Close()
	plistBytes, err := io.ReadAll(io.LimitReader(rc, maxFrame+1))
	if err != nil || len(plistBytes) > maxFrame {
		return nil, &installError{"PackageExtractionFailed", fmt.Sprintf("Failed to extract %s: unreadable or larger than %d bytes", info.Name, maxFrame)}
	}
	return appFromInfoPlist(plistBytes, path.Base(path.Dir(info.Name)))
}

// appFromDir reads an unpacked bundle staged as files.
func (d *Device) appFromDir(p string) (*appRecord, *installError) {
	bundle := p
	if !strings.HasSuffix(p, ".app") {
		var apps []string
		for _, sub := range d.fs.subdirs(path.Join(p, "Payload")) {
			if strings.HasSuffix(sub, ".app") {
				apps = append(apps, sub)
			}
		}
		if len(apps) != 1 {
			return nil, &installError{"PackageInspectionFailed", fmt.Sprintf("Expected one NAME.app in %s/Payload, found %d", p, len(apps))}
		}
		bundle = apps[0]
	}
	data, ok := d.fs.readFile(path.Join(bundle, "Info.plist"))
	if !ok {
		return nil, &installError{"PackageInspectionFailed", fmt.Sprintf("Failed to find %s/Info.plist", bundle)}
	}
	return appFromInfoPlist(data, path.Base(bundle))
}

// appFromInfoPlist makes the app record an Info.plist (XML or binary) describes.
func appFromInfoPlist(data []byte, bundleDir string) (*appRecord, *installError) {
	m, err := decodeDict(data)
	if err != nil {
		return nil, &installError{"PackageInspectionFailed", fmt.Sprintf("Failed to read Info.plist: %v", err)}
	}
	id := dictString(m, "CFBundleIdentifier")
	if id == "" || len(id) > 255 {
		return nil, &installError{"PackageInspectionFailed", "Info.plist has no CFBundleIdentifier (a string)"}
	}
	stem := strings.TrimSuffix(bundleDir, ".app")
	name := defaultString(dictString(m, "CFBundleName"), stem)
	exe := executableName(defaultString(dictString(m, "CFBundleExecutable"), stem))
	version := defaultString(dictString(m, "CFBundleVersion"), "1")
	a := newUserApp(id, name,
		defaultString(dictString(m, "CFBundleDisplayName"), name),
		defaultString(dictString(m, "CFBundleShortVersionString"), version),
		version, exe)
	a.path = path.Dir(a.path) + "/" + executableName(bundleDir)
	a.minOS = dictString(m, "MinimumOSVersion")
	return a, nil
}
