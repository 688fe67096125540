package main

import (
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A gateway serving every tool (--tools all) whose policy gives the token only the httprunner
// profile lists that profile's tools: corral run names the policy as a cause, not the
// gateway's --tools alone. QA saw "it serves the httprunner profile (--tools httprunner, …) … a
// gateway started with --tools all (the default) serves it", on a gateway started so.
func TestRunNamesThePolicyOfAProfilesTools(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	dir := t.TempDir()
	const token = "ci-token-7d3f1b9e5a2c"
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(token+"\n"), 0o600))
	p, err := mcp.ParsePolicy([]byte("principals:\n  - {name: ci, token: "+token+", tools: [httprunner]}\n"), dir)
	require.NoError(t, err)
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Policy: p})
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); g.Close() })
	file := filepath.Join(dir, "leases.yaml")
	require.NoError(t, os.WriteFile(file, []byte("- {method: list_leases}\n"), 0o600))

	var runErr error
	output := captureOutput(t, func() {
		runErr = runRun(t.Context(), []string{file, "--gateway", srv.URL + "/mcp", "--token-file", tokenFile})
	})
	require.Error(t, runErr, output)
	msg := runErr.Error()
	t.Log(msg)
	assert.Contains(t, msg, "the gateway does not list list_leases: it lists the ")
	assert.Contains(t, msg, "either it serves that profile (--tools httprunner")
	assert.Contains(t, msg, "or its auth policy gives this token only those (a principal with tools: [httprunner]")
	assert.NotContains(t, msg, token)
}
