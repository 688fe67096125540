package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Both reports to stdout could not be read apart, and both to one file keep only the XML: both
// are refused before anything runs (no gateway is dialed: none answers on port 1).
func TestRunRefusesReportsToOnePlace(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "steps.yaml")
	require.NoError(t, os.WriteFile(file, []byte("- method: get_screen_size\n"), 0o600))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "r.json"), nil, 0o600))
	require.NoError(t, os.Symlink(filepath.Join(dir, "r.json"), link))
	for _, c := range []struct {
		json, junit, want string
	}{
		{"-", "-", "--json - and --junit - both write to stdout, where neither could be read: give one of them a file"},
		{filepath.Join(dir, "out1.json"), filepath.Join(dir, "out1.json"), "--json " + filepath.Join(dir, "out1.json") + " and --junit " +
			filepath.Join(dir, "out1.json") + " are the same file: the JUnit XML would replace the JSON"},
		{link, filepath.Join(dir, "r.json"), "are the same file"},
	} {
		err := runRun(t.Context(), []string{file, "--serial", "s", "--gateway", "http://127.0.0.1:1/mcp", "--json", c.json, "--junit", c.junit,
			"--log-level", "error"})
		if assert.Error(t, err, c) {
			assert.Contains(t, err.Error(), c.want)
			assert.Contains(t, err.Error(), "nothing ran")
		}
	}
	// Apart, they are fine: --check-config says so without a gateway.
	require.NoError(t, runRun(t.Context(), []string{file, "--serial", "s", "--json", "-", "--junit", filepath.Join(dir, "r.xml"),
		"--check-config", "--log-level", "error"}))
	assert.NoFileExists(t, filepath.Join(dir, "out1.json"))
}
