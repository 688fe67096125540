package apk

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
)

// manifestName is where an APK keeps its manifest.
const manifestName = "AndroidManifest.xml"

// maxManifest bounds the manifest read; real ones are a few kilobytes to a few hundred.
const maxManifest = 4 << 20

// ErrNoManifest says the file is not an APK whose manifest can be read.
var ErrNoManifest = errors.New("no readable AndroidManifest.xml")

// Manifest is what a manifest says of its app.
type Manifest struct {
	Package     string // e.g. com.example.app
	VersionName string // e.g. 1.2.3; empty when absent or a resource reference
	VersionCode uint32 // 0 when absent
}

// ReadFile reads the manifest of the APK at path.
func ReadFile(path string) (Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("read the APK: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Manifest{}, fmt.Errorf("read the APK: %w", err)
	}
	return Read(f, st.Size())
}

// Read reads the manifest of the APK held by r, of size bytes.
func Read(r io.ReaderAt, size int64) (Manifest, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return Manifest{}, fmt.Errorf("%w: not a zip archive (%w)", ErrNoManifest, err)
	}
	for _, f := range zr.File {
		if f.Name != manifestName {
			continue
		}
		if f.UncompressedSize64 > maxManifest {
			return Manifest{}, fmt.Errorf("%w: %s is %d bytes, more than %d", ErrNoManifest, manifestName, f.UncompressedSize64, maxManifest)
		}
		rc, err := f.Open()
		if err != nil {
			return Manifest{}, fmt.Errorf("%w: %w", ErrNoManifest, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxManifest+1))
		rc.Close()
		if err != nil || len(b) > maxManifest {
			return Manifest{}, fmt.Errorf("%w: %s unreadable or larger than %d bytes", ErrNoManifest, manifestName, maxManifest)
		}
		return ParseManifest(b)
	}
	return Manifest{}, fmt.Errorf("%w: the zip has no %s", ErrNoManifest, manifestName)
}
