package ipa

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// maxInfoPlist bounds the Info.plist read; real ones are a few kilobytes.
const maxInfoPlist = 1 << 20

// ErrNoInfo says the file is not an .ipa whose Info.plist names its app.
var ErrNoInfo = errors.New("no readable Info.plist")

// ErrBadBundleID says the Info.plist was read but its CFBundleIdentifier is missing or is no
// bundle id (it is ErrNoInfo too). An app installed so could never be named to launch or remove.
var ErrBadBundleID error = badBundleID{}

type badBundleID struct{}

func (badBundleID) Error() string {
	return "is no bundle id: one holds only letters A-Z and a-z, digits, '-' and '.', and neither starts nor ends with '.'"
}

func (badBundleID) Is(target error) bool { return target == ErrNoInfo }

// Info is what an app's Info.plist says of it.
type Info struct {
	BundleID string // CFBundleIdentifier, e.g. com.example.app
	Version  string // CFBundleShortVersionString, e.g. 1.2.3; empty when absent
	Build    string // CFBundleVersion, e.g. 42; empty when absent
}

// ReadFile reads the Info.plist of the .ipa at path.
func ReadFile(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, fmt.Errorf("read the .ipa: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Info{}, fmt.Errorf("read the .ipa: %w", err)
	}
	return Read(f, st.Size())
}

// Read reads the Info.plist of the .ipa held by r, of size bytes: the one at
// Payload/NAME.app/Info.plist, as installd looks for it.
func Read(r io.ReaderAt, size int64) (Info, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return Info{}, fmt.Errorf("%w: not a zip archive (%w)", ErrNoInfo, err)
	}
	apps := appPlists(zr.File)
	switch {
	case len(apps) == 0:
		return Info{}, fmt.Errorf("%w: no Payload/NAME.app/Info.plist", ErrNoInfo)
	case len(apps) > 1:
		return Info{}, fmt.Errorf("%w: more than one app in Payload/", ErrNoInfo)
	}
	info := apps[0]
	if info.UncompressedSize64 > maxInfoPlist {
		return Info{}, fmt.Errorf("%w: %s is %d bytes, more than %d", ErrNoInfo, info.Name, info.UncompressedSize64, maxInfoPlist)
	}
	rc, err := info.Open()
	if err != nil {
		return Info{}, fmt.Errorf("%w: %w", ErrNoInfo, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxInfoPlist+1))
	if err != nil || len(b) > maxInfoPlist {
		return Info{}, fmt.Errorf("%w: %s unreadable or larger than %d bytes", ErrNoInfo, info.Name, maxInfoPlist)
	}
	return ParseInfoPlist(b)
}

// appPlists are the apps' Info.plist files, at Payload/NAME.app/Info.plist as installd looks
// for them.
func appPlists(files []*zip.File) []*zip.File {
	var out []*zip.File
	for _, f := range files {
		dir, file := path.Split(f.Name)
		parts := strings.Split(strings.TrimSuffix(dir, "/"), "/")
		if file == "Info.plist" && len(parts) == 2 && parts[0] == "Payload" && strings.HasSuffix(parts[1], ".app") {
			out = append(out, f)
		}
	}
	return out
}

// ParseInfoPlist reads an Info.plist, XML or binary. It needs a CFBundleIdentifier.
func ParseInfoPlist(b []byte) (Info, error) {
	var (
		m   map[string]string
		err error
	)
	if strings.HasPrefix(string(b[:min(len(b), 8)]), "bplist00") {
		m, err = binaryStrings(b)
	} else {
		m, err = xmlStrings(b)
	}
	if err != nil {
		return Info{}, fmt.Errorf("%w: %w", ErrNoInfo, err)
	}
	in := Info{BundleID: m["CFBundleIdentifier"], Version: m["CFBundleShortVersionString"], Build: m["CFBundleVersion"]}
	if !validBundleID(in.BundleID) {
		return Info{}, fmt.Errorf("CFBundleIdentifier %q %w", in.BundleID, ErrBadBundleID)
	}
	return in, nil
}

// validBundleID reports whether s looks like a bundle id: letters, digits, '-' and '.', as
// Apple allows, at most 255 bytes.
func validBundleID(s string) bool {
	if s == "" || len(s) > 255 || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
