package iossim

import (
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// Bounds of a device's in-memory files, since AFC writes come from any host.
const (
	maxFSBytes = 256 << 20
	maxFSNodes = 100_000
)

// AFC status codes, as go-ios's afc package names them.
const (
	afcOK                 = 0
	afcOpHeaderInvalid    = 2
	afcNoResources        = 3
	afcUnknownPacketType  = 6
	afcInvalidArgument    = 7
	afcObjectNotFound     = 8
	afcObjectIsDir        = 9
	afcPermDenied         = 10
	afcOpNotSupported     = 15
	afcObjectExists       = 16
	afcNoSpaceLeft        = 18
	afcDirNotEmpty        = 33
	afcMaxPathLen         = 1024
	afcMaxPathComponents  = 64
	afcDefaultBlockSize   = 4096
	afcTotalBytesReported = 64_000_000_000
)

// memFS is a device's Media folder, what AFC sees as "/". Paths are clean and absolute.
type memFS struct {
	mu    sync.Mutex
	nodes map[string]*fsNode
	used  int64
	limit int64
}

type fsNode struct {
	dir         bool
	data        []byte
	mtime, born time.Time
}

func newMemFS(limit int64) *memFS {
	now := time.Now()
	fs := &memFS{nodes: map[string]*fsNode{}, limit: limit}
	for _, p := range []string{"/", "/DCIM", "/Downloads", "/Books", "/Photos", "/iTunes_Control"} {
		fs.nodes[p] = &fsNode{dir: true, mtime: now, born: now}
	}
	return fs
}

// cleanPath makes an AFC path absolute and clean: relative paths start at the Media folder and
// ".." cannot leave it. C strings may arrive with their terminating NUL.
func cleanPath(p string) (string, int) {
	p = strings.TrimRight(p, "\x00")
	if len(p) > afcMaxPathLen || strings.ContainsRune(p, 0) {
		return "", afcInvalidArgument
	}
	c := path.Clean("/" + p)
	if strings.Count(c, "/") > afcMaxPathComponents {
		return "", afcInvalidArgument
	}
	return c, afcOK
}

// parentDirLocked checks that p's parent is a directory.
func (fs *memFS) parentDirLocked(p string) int {
	if parent := fs.nodes[path.Dir(p)]; parent == nil || !parent.dir {
		return afcObjectNotFound
	}
	return afcOK
}

// mkdirAll is AFC's MakeDir, which makes missing parents too.
func (fs *memFS) mkdirAll(p string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	now := time.Now()
	cur := ""
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if part == "" {
			continue
		}
		cur += "/" + part
		switch n := fs.nodes[cur]; {
		case n == nil:
			if len(fs.nodes) >= maxFSNodes {
				return afcNoSpaceLeft
			}
			fs.nodes[cur] = &fsNode{dir: true, mtime: now, born: now}
		case !n.dir:
			return afcObjectExists
		}
	}
	return afcOK
}

// stat returns a copy of the node's metadata, and for a directory how many entries it has.
func (fs *memFS) stat(p string) (size int64, dir bool, entries int, mtime, born time.Time, code int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.nodes[p]
	if n == nil {
		return 0, false, 0, time.Time{}, time.Time{}, afcObjectNotFound
	}
	if n.dir {
		entries = len(fs.childrenLocked(p))
	}
	return int64(len(n.data)), n.dir, entries, n.mtime, n.born, afcOK
}

// list is AFC's ReadDir: the names in a directory, "." and ".." first as afcd sends them.
func (fs *memFS) list(p string) ([]string, int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.nodes[p]
	switch {
	case n == nil:
		return nil, afcObjectNotFound
	case !n.dir:
		return nil, afcInvalidArgument
	}
	kids := fs.childrenLocked(p)
	names := make([]string, 0, len(kids)+2)
	names = append(names, ".", "..")
	for _, k := range kids {
		names = append(names, path.Base(k))
	}
	return names, afcOK
}

// childrenLocked lists the paths directly in directory p, sorted.
func (fs *memFS) childrenLocked(p string) []string {
	prefix := p + "/"
	if p == "/" {
		prefix = "/"
	}
	var out []string
	for k := range fs.nodes {
		if k != "/" && strings.HasPrefix(k, prefix) && !strings.Contains(k[len(prefix):], "/") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// remove is RemovePath (all false: a directory must be empty) and RemovePathAndContents.
func (fs *memFS) remove(p string, all bool) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.nodes[p]
	switch {
	case p == "/":
		return afcPermDenied
	case n == nil:
		return afcObjectNotFound
	case n.dir && !all && len(fs.childrenLocked(p)) > 0:
		return afcDirNotEmpty
	}
	for k, v := range fs.nodes {
		if k == p || strings.HasPrefix(k, p+"/") {
			fs.used -= int64(len(v.data))
			delete(fs.nodes, k)
		}
	}
	return afcOK
}

// rename is RenamePath: a file or a whole directory moves, replacing a file at the target.
func (fs *memFS) rename(from, to string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.nodes[from]
	switch {
	case from == "/" || to == "/":
		return afcPermDenied
	case n == nil:
		return afcObjectNotFound
	case strings.HasPrefix(to, from+"/"):
		return afcInvalidArgument
	case fs.parentDirLocked(to) != afcOK:
		return afcObjectNotFound
	}
	if t := fs.nodes[to]; t != nil {
		if t.dir {
			return afcObjectExists
		}
		fs.used -= int64(len(t.data))
	}
	moved := map[string]*fsNode{}
	for k, v := range fs.nodes {
		if k == from || strings.HasPrefix(k, from+"/") {
			moved[to+k[len(from):]] = v
			delete(fs.nodes, k)
		}
	}
	for k, v := range moved {
		fs.nodes[k] = v
	}
	return afcOK
}

// open finds or makes the file for an AFC open mode.
func (fs *memFS) open(p string, create, trunc bool) (*fsNode, int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.nodes[p]
	switch {
	case n != nil && n.dir:
		return nil, afcObjectIsDir
	case n == nil && !create:
		return nil, afcObjectNotFound
	case n == nil:
		if code := fs.parentDirLocked(p); code != afcOK {
			return nil, code
		}
		if len(fs.nodes) >= maxFSNodes {
			return nil, afcNoSpaceLeft
		}
		now := time.Now()
		n = &fsNode{mtime: now, born: now}
		fs.nodes[p] = n
	case trunc:
		fs.used -= int64(len(n.data))
		n.data = nil
		n.mtime = time.Now()
	}
	return n, afcOK
}

// readAt reads from a file at off.
func (fs *memFS) readAt(n *fsNode, off int64, max int) []byte {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if off < 0 || off >= int64(len(n.data)) {
		return nil
	}
	end := min(int64(len(n.data)), off+int64(max))
	return slices.Clone(n.data[off:end])
}

// writeAt writes b into a file at off, growing it within the file system's bound.
func (fs *memFS) writeAt(n *fsNode, off int64, b []byte) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if off < 0 || off > fs.limit {
		return afcNoSpaceLeft
	}
	end := off + int64(len(b))
	if old := int64(len(n.data)); end > old {
		if fs.used+end-old > fs.limit {
			return afcNoSpaceLeft
		}
		fs.used += end - old
		n.data = slices.Grow(n.data, int(end-old))[:end]
		clear(n.data[old:]) // a seek past the end leaves zeros, as a file system does
	}
	copy(n.data[off:], b)
	n.mtime = time.Now()
	return afcOK
}

// truncate sets a file's size.
func (fs *memFS) truncate(n *fsNode, size int64) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	cur := int64(len(n.data))
	switch {
	case size < 0:
		return afcInvalidArgument
	case size > cur:
		if size > fs.limit || fs.used+size-cur > fs.limit {
			return afcNoSpaceLeft
		}
		n.data = append(n.data, make([]byte, size-cur)...)
	default:
		n.data = n.data[:size:size]
	}
	fs.used += size - cur
	n.mtime = time.Now()
	return afcOK
}

func (fs *memFS) size(n *fsNode) int64 {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return int64(len(n.data))
}

// readFile returns a copy of a whole file, for installation_proxy.
func (fs *memFS) readFile(p string) ([]byte, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.nodes[p]
	if n == nil || n.dir {
		return nil, false
	}
	return slices.Clone(n.data), true
}

// isDir tells whether p is a directory.
func (fs *memFS) isDir(p string) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.nodes[p]
	return n != nil && n.dir
}

// subdirs lists the directories directly in p.
func (fs *memFS) subdirs(p string) []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var out []string
	for _, k := range fs.childrenLocked(p) {
		if fs.nodes[k].dir {
			out = append(out, k)
		}
	}
	return out
}

func (fs *memFS) free() int64 {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.limit - fs.used
}
