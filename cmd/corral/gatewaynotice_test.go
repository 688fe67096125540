package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// What corral adds to a --gateway URL is said once: the check before dialing and the dial
// each said it.
func TestGatewayURLNoticeIsSaidOnce(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	u, err := url.Parse(f.Gateway().MCPURL)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "steps.yaml")
	require.NoError(t, os.WriteFile(file, []byte("- method: get_screen_size\n"), 0o600))
	for name, run := range map[string]func() error{
		"devices": func() error { return runDevices(t.Context(), []string{"--gateway", u.Host, "--log-level", "error"}) },
		"leases": func() error {
			return runLeases(t.Context(), []string{"--gateway", "http://" + u.Host, "--log-level", "error"})
		},
		"run": func() error {
			return runRun(t.Context(), []string{file, "--serial", "n1-p1", "--gateway", "http://" + u.Host, "--log-level", "error"})
		},
	} {
		var err error
		said := captureOutput(t, func() { err = run() })
		require.NoError(t, err, "%s: %s", name, said)
		assert.Equal(t, 1, strings.Count(said, "using the gateway's MCP endpoint"), "%s said:\n%s", name, said)
	}
}
