package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral run's reports (JSON, JUnit, the table) never hold a lease handle: a step's lease
// argument and acquire_device's answer show the handle's kind only.
func TestRunReportsRedactLeaseHandles(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	dir := t.TempDir()
	file := filepath.Join(dir, "steps.yaml")
	require.NoError(t, os.WriteFile(file, []byte("steps:\n"+
		"  - tool: acquire_device\n    arguments: {serial: "+serial+"}\n"+
		"  - method: tap_xy\n    params: [0.5, 0.5]\n"+
		"  - tool: release_device\n    arguments: {}\n"), 0o600))
	jsonOut, junitOut := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	table := captureOutput(t, func() {
		require.NoError(t, runRun(t.Context(), []string{file, "--serial", serial, "--gateway", f.Gateway().MCPURL,
			"--json", jsonOut, "--junit", junitOut, "--log-level", "error"}))
	})
	handle := regexp.MustCompile(`lease_[a-z2-7]{8,}`)
	for name, text := range map[string]string{"table": table, "json": readFile(t, jsonOut), "junit": readFile(t, junitOut)} {
		assert.NotRegexp(t, handle, text, name)
	}
	assert.Contains(t, readFile(t, jsonOut), `"lease": "lease_…(redacted)"`)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
