package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral run's exit codes are docs/scripted-runs.md's: 2 for a command line it does not take,
// 1 for a run that cannot start or failed, 0 for steps that check out.
func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "steps.yaml")
	require.NoError(t, os.WriteFile(file, []byte("- method: get_screen_size\n"), 0o600))
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("- method: home\n - method: back\n"), 0o600))
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"run"}, 2},
		{[]string{"run", file, file}, 2},
		{[]string{"run", file, "--nope"}, 2},
		{[]string{"run", file, "--serial"}, 2},
		{[]string{"run", bad, "--check-config"}, 1},
		{[]string{"run", file, "--json", "-", "--junit", "-", "--serial", "s"}, 2},
		{[]string{"run", file, "--json", filepath.Join(dir, "r.x"), "--junit", filepath.Join(dir, "r.x"), "--serial", "s"}, 2},
		{[]string{"run", file, "--serial", "s", "--gateway", "http://127.0.0.1:1/mcp", "--log-level", "error"}, 1},
		{[]string{"run", file, "--serial", "s", "--check-config"}, 0},
	} {
		var code int
		captureOutput(t, func() { code = realMain(c.args) })
		assert.Equal(t, c.code, code, "%v", c.args)
	}
}
