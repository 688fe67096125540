package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// The CLI's messages say each thing once: no ".;" where a hint follows a sentence, no prefix
// said twice.
func TestMessagesSayEachThingOnce(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	dev := f.Devices()[0]

	// tasks export of a task the farm does not know.
	err := runTasksExport(t.Context(), []string{"nosuch", "--gateway", f.Gateway().MCPURL, "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "; `corral tasks --tool run_agent_task`")
	assert.NotContains(t, err.Error(), ".;")

	// drain --wait of a node whose device is held, until its --timeout: long enough for the
	// drain request itself to be answered on a loaded machine (1 s was missed once).
	c := f.Client("holder")
	farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": dev.Serial})
	t.Cleanup(func() {
		_ = runDrain(t.Context(), []string{dev.Node, "--undo", "--nats-url", f.URL, "--log-level", "error"})
	})
	err = captureErr(t, func() error {
		return runDrain(t.Context(), []string{dev.Node, "--wait", "--timeout", "5s", "--nats-url", f.URL, "--log-level", "error"})
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 lease held, 0 queued; `corral leases` shows who holds its devices")

	// run and call with the gateway down: mcp-go's "failed to send request" is not repeated.
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + closed.Addr().String() + "/mcp"
	require.NoError(t, closed.Close())
	file := filepath.Join(t.TempDir(), "steps.yaml")
	require.NoError(t, os.WriteFile(file, []byte("steps:\n  - method: home\n"), 0o600))
	for name, run := range map[string]func() error{
		"run": func() error {
			return runRun(t.Context(), []string{file, "--serial", dev.Serial, "--gateway", down, "--log-level", "error"})
		},
		"call": func() error {
			return runCall(t.Context(), []string{"--gateway", down, "--log-level", "error", "home", "{}"})
		},
	} {
		err := run()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "gateway "+down+": Post ", name)
		assert.LessOrEqual(t, strings.Count(err.Error(), "failed to send request"), 1, "%s: %v", name, err)
	}
}

// captureErr runs fn with its output captured, and returns its error.
func captureErr(t *testing.T, fn func() error) error {
	t.Helper()
	var err error
	captureOutput(t, func() { err = fn() })
	return err
}
