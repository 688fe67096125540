package ipa

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// installd refuses an .ipa it cannot unpack only after the copy to the phone, as
// PackageExtractionFailed or PackageInspectionFailed, which reads as the device's failure. Check
// finds those problems on the node, before the copy, as the file's.

// ErrBadIPA is what every problem Check finds is (errors.Is): the file's, not the device's.
var ErrBadIPA = errors.New("not an .ipa installd can unpack")

// problem is one kind of ErrBadIPA.
type problem struct{ msg string }

func (p *problem) Error() string        { return p.msg }
func (p *problem) Is(target error) bool { return target == ErrBadIPA }

// What Check finds, each an ErrBadIPA.
var (
	ErrNotZip  error = &problem{"the file is not a zip archive, as every .ipa is"}
	ErrNoApp   error = &problem{"it holds no Payload/NAME.app/Info.plist, where an .ipa keeps its app"}
	ErrTwoApps error = &problem{"Payload/ holds more than one app, where an .ipa holds one"}
	ErrOutside error = &problem{"points outside the archive"}
	ErrDamaged error = &problem{"is damaged"}
)

// maxLink bounds a symbolic link's target read; a path is far shorter.
const maxLink = 4096

// CheckFile is Check of the .ipa at name.
func CheckFile(ctx context.Context, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("read the .ipa: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read the .ipa: %w", err)
	}
	return Check(ctx, f, st.Size())
}

// Check reads the .ipa held by r, of size bytes, as installd unpacks it: a zip archive whose
// entries all stay inside it (names and symbolic links) and all unpack with their checksums,
// with one app at Payload/NAME.app. It reads every entry, so that it costs what unpacking does,
// and stops with ctx. Entries compressed in a way archive/zip does not know are left to installd.
func Check(ctx context.Context, r io.ReaderAt, size int64) error {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // GODEBUG=zipinsecurepath=0; checked below
		return ErrNotZip
	}
	for _, f := range zr.File {
		if outside(f.Name) {
			return fmt.Errorf("entry %q %w", f.Name, ErrOutside)
		}
	}
	switch apps := appPlists(zr.File); {
	case len(apps) == 0:
		return ErrNoApp
	case len(apps) > 1:
		return fmt.Errorf("%w (%s, %s)", ErrTwoApps, path.Dir(apps[0].Name), path.Dir(apps[1].Name))
	}
	for _, f := range zr.File {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := unpacks(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

// outside says whether an entry name would unpack outside the directory it unpacks in.
func outside(name string) bool {
	if name == "" || path.IsAbs(name) || strings.Contains(name, `\`) {
		return true
	}
	return slices.Contains(strings.Split(name, "/"), "..")
}

// unpacks reads entry f whole, checking its checksum, and a symbolic link's target.
func unpacks(ctx context.Context, f *zip.File) error {
	if f.FileInfo().IsDir() {
		return nil
	}
	rc, err := f.Open()
	if errors.Is(err, zip.ErrAlgorithm) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("entry %q %w (%v)", f.Name, ErrDamaged, err)
	}
	defer rc.Close()
	if f.Mode()&fs.ModeSymlink != 0 {
		target, err := io.ReadAll(io.LimitReader(rc, maxLink+1))
		switch {
		case err != nil:
			return fmt.Errorf("entry %q %w (%v)", f.Name, ErrDamaged, err)
		case len(target) > maxLink || outside(path.Join(path.Dir(f.Name), string(target))) || path.IsAbs(string(target)):
			return fmt.Errorf("entry %q, a link to %q, %w", f.Name, clip(string(target)), ErrOutside)
		}
		return nil
	}
	if _, err := io.Copy(io.Discard, ctxReader{ctx, rc}); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return fmt.Errorf("entry %q %w (%v)", f.Name, ErrDamaged, err)
	}
	return nil
}

// clip shortens s for a message.
func clip(s string) string {
	const most = 100
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}

// ctxReader stops reading once ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
