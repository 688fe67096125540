package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral nats-auth leaves every file of secrets it writes or keeps readable by its owner only,
// also those that were world-readable before it ran (os.WriteFile keeps an existing file's
// mode; users.json is rewritten only when a user is added).
func TestNATSAuthNarrowsWorldReadableSecrets(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	run := func() {
		var err error
		out := captureStdout(t, func() {
			err = runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "n1", "--site", "s1=s1-n1"})
		})
		require.NoError(t, err, out)
	}
	run()
	files := []string{"users.json", "nats-server-auth.conf", "leaf-s1-remote.conf", "operator.json", "node-n1.json"}
	for _, f := range files {
		require.NoError(t, os.Chmod(filepath.Join(dir, f), 0o644))
	}
	run()
	for _, f := range files {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "%s stays readable by others", f)
	}
}
