package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// checkOutFile refuses, before a command runs its tool, an output file (flag name) it could
// not write what (the image, the steps file) to afterwards: a directory, a directory that does
// not exist or that it may not write, a file it may not write. A tool that ran for nothing
// (a screenshot taken, a task read) and then failed to write would leave the user to run it
// again. It writes nothing: a file made in the directory to try it is removed at once, a file
// already there is opened, not truncated. "" and "-" (standard output) pass.
func checkOutFile(name, path, what, example string) error {
	if path == "" || path == stdoutName {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s %s is a directory: give %s's file in it, e.g. %s; nothing ran", name, path, what, filepath.Join(path, example))
	}
	probe, err := os.CreateTemp(filepath.Dir(path), ".corral-out-*")
	if err == nil {
		_ = probe.Close()
		_ = os.Remove(probe.Name())
		var fh *os.File // a file already there must take it too
		if fh, err = os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			_ = fh.Close()
		} else if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("%s %s: %s could not be written there (%w); nothing ran: give a file in a directory that exists and that you may write",
			name, path, what, err)
	}
	return nil
}
