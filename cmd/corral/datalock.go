package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// dataLock is an exclusive lock on a data directory: one corral process runs an embedded NATS
// on a JetStream store and writes the natscli contexts there. A second one on the same
// directory would start another server on the same store and point the contexts at itself,
// away from the running farm; it must refuse before it touches anything.
type dataLock struct{ f *os.File }

// dataLockFile is the lock's file in the data directory; it holds the holder's process id.
const dataLockFile = "corral.lock"

// lockData takes the lock of dir, or says which process holds it.
func lockData(dir string) (*dataLock, error) {
	path := filepath.Join(dir, dataLockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("data directory %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := "another process"
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				holder = fmt.Sprintf("process %d", pid)
			}
			return nil, fmt.Errorf("another corral up (%s) uses this data dir (%s); stop it or pass another --data", holder, dir)
		}
		return nil, fmt.Errorf("lock data directory %s: %w", dir, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dataLock{f: f}, nil
}

// unlock releases the lock (so does the process's end).
func (l *dataLock) unlock() { _ = l.f.Close() }

// dataStart is what a start of an embedded NATS found in its data directory, to leave it so
// when the start fails: a refused start (its --nats-port in use) left a fresh directory with a
// lock and new passwords in it.
type dataStart struct {
	dir  string
	made []string // the directories the start made, dir first, up to the first that existed
	lock bool     // whether dir held a lock file before
	old  map[string]bool
}

// makeData makes dir if it is missing, noting what of it was there.
func makeData(dir string) (*dataStart, error) {
	s := &dataStart{dir: dir}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) || filepath.Dir(d) == d {
			break
		}
		s.made = append(s.made, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	_, err := os.Lstat(filepath.Join(dir, dataLockFile))
	s.lock = err == nil
	return s, nil
}

// locked notes dir's entries once the lock is held: no other corral adds any from then on.
func (s *dataStart) locked() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("data directory %s: %w", s.dir, err)
	}
	s.old = make(map[string]bool, len(entries))
	for _, e := range entries {
		s.old[e.Name()] = e.Name() != dataLockFile || s.lock
	}
	return nil
}

// undo removes what the failed start added to dir (its entries that were not there, the lock
// file included), then lets the lock go, then removes the directories it made, if empty.
// Nothing that was there before is touched.
func (s *dataStart) undo(l *dataLock) {
	if entries, err := os.ReadDir(s.dir); err == nil && s.old != nil {
		for _, e := range entries {
			if !s.old[e.Name()] {
				_ = os.RemoveAll(filepath.Join(s.dir, e.Name()))
			}
		}
	}
	l.unlock()
	for _, d := range s.made {
		_ = os.Remove(d) // only an empty one
	}
}
