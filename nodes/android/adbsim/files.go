package adbsim

import (
	"errors"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// storageLimit bounds the bytes of all files kept in memory.
const storageLimit = 200 << 20

// Unix file modes as sync reports them.
const (
	modeDir  = 0o040000
	modeFile = 0o100000
	modeType = 0o170000
)

var (
	errNoSpace  = errors.New("No space left on device")
	errReadOnly = errors.New("Read-only file system")
	errIsDir    = errors.New("Is a directory")
	errNotFound = errors.New("No such file or directory")
)

// dirs exist on every device; parents of stored files exist too.
var dirs = []string{"/", "/data", "/data/local", "/data/local/tmp", "/sdcard", "/sdcard/Download",
	"/storage", "/storage/emulated", "/storage/emulated/0", "/system", "/system/bin", "/dev", "/proc"}

// readOnly are the trees nothing can be written into.
var readOnly = []string{"/system", "/proc", "/dev", "/vendor"}

// File is a file pushed to the device.
type File struct {
	Data  []byte
	Mode  uint32 // permission bits and file type, as SEND gave them
	MTime time.Time
}

// fileStore keeps pushed files in memory, within limit bytes in all.
type fileStore struct {
	mu    sync.Mutex
	files map[string]File
	total int
	limit int
}

// cleanPath makes p absolute and clean; "" if it is not absolute.
func cleanPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	return path.Clean(p)
}

// room says whether n bytes fit at p, counting the file they replace as free.
func (fs *fileStore) room(p string, n int) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.total-len(fs.files[p].Data)+n <= fs.limit
}

// writable says why p cannot be written, or nil.
func (fs *fileStore) writable(p string) error {
	if p == "" {
		return errNotFound
	}
	for _, ro := range readOnly {
		if p == ro || strings.HasPrefix(p, ro+"/") {
			return errReadOnly
		}
	}
	if fs.isDir(p) {
		return errIsDir
	}
	return nil
}

func (fs *fileStore) put(p string, f File) error {
	if err := fs.writable(p); err != nil {
		return err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	old := len(fs.files[p].Data)
	if fs.total-old+len(f.Data) > fs.limit {
		return errNoSpace
	}
	if fs.files == nil {
		fs.files = map[string]File{}
	}
	if f.Mode&modeType == 0 {
		f.Mode |= modeFile
	}
	fs.files[p] = f
	fs.total += len(f.Data) - old
	return nil
}

func (fs *fileStore) get(p string) (File, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, ok := fs.files[cleanPath(p)]
	return f, ok
}

func (fs *fileStore) remove(p string) bool {
	p = cleanPath(p)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, ok := fs.files[p]
	if ok {
		fs.total -= len(f.Data)
		delete(fs.files, p)
	}
	return ok
}

// isDir says whether p is a directory: a fixed one or the parent of a file.
func (fs *fileStore) isDir(p string) bool {
	if slices.Contains(dirs, p) {
		return true
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for name := range fs.files {
		if strings.HasPrefix(name, p+"/") {
			return true
		}
	}
	return false
}

// dirEntry is one name in a directory listing.
type dirEntry struct {
	name  string
	mode  uint32
	size  int
	mtime time.Time
}

// list returns the files and directories directly in dir, sorted.
func (fs *fileStore) list(dir string) []dirEntry {
	seen := map[string]dirEntry{}
	child := func(p string) (string, bool) {
		rest, ok := strings.CutPrefix(p, strings.TrimSuffix(dir, "/")+"/")
		if !ok || rest == "" {
			return "", false
		}
		name, _, _ := strings.Cut(rest, "/")
		return name, true
	}
	for _, d := range dirs {
		if name, ok := child(d); ok {
			seen[name] = dirEntry{name: name, mode: modeDir | 0o771}
		}
	}
	fs.mu.Lock()
	for p, f := range fs.files {
		name, ok := child(p)
		if !ok {
			continue
		}
		if path.Join(dir, name) == p {
			seen[name] = dirEntry{name: name, mode: f.Mode, size: len(f.Data), mtime: f.MTime}
		} else if _, dup := seen[name]; !dup {
			seen[name] = dirEntry{name: name, mode: modeDir | 0o771}
		}
	}
	fs.mu.Unlock()
	out := make([]dirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	return out
}

// File returns a file pushed to the device (or written by screencap or uiautomator dump).
func (d *Device) File(p string) (File, bool) { return d.files.get(p) }
