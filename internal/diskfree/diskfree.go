// Package diskfree says how large a directory's disk is and how much of it is free, for the
// hints and checks of what fills it (corral up's data directory, the embedded NATS's store).
package diskfree

import (
	"fmt"
	"syscall"
)

// Of returns the size of dir's disk and the space an unprivileged writer may still use on it,
// in bytes.
func Of(dir string) (size, free int64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, fmt.Errorf("free space of %s: %w", dir, err)
	}
	bsize := int64(st.Bsize) // int64 on Linux, uint32 on macOS
	return int64(st.Blocks) * bsize, int64(st.Bavail) * bsize, nil
}
