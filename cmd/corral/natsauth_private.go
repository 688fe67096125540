package main

import (
	"fmt"
	"os"
)

// writePrivate writes a file of secrets with mode 0600, narrowing one that already exists:
// os.WriteFile keeps an existing file's mode, so a server configuration or a site's leafnodes
// block once left world-readable (copied, made by hand) would stay so, passwords and all.
func writePrivate(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("make %s readable by its owner only: %w", path, err)
	}
	return nil
}
