package diskfree

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// A directory's disk has a size and at most that much free; a directory that is not there is
// an error naming it.
func TestOf(t *testing.T) {
	size, free, err := Of(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if size <= 0 || free < 0 || free > size {
		t.Errorf("size %d, free %d: want 0 <= free <= size, size > 0", size, free)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, _, err := Of(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Of(%s) = %v, want an error that is fs.ErrNotExist", missing, err)
	}
}
