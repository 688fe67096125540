package main

import (
	"errors"
	"fmt"
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
