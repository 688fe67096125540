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

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// corral call of a tool the gateway's --tools profile leaves out says so, as corral run does:
// it said "the gateway has no tool", as of a tool that does not exist, and counted the
// profile's tools as all the gateway's.
func TestCallOfAToolTheProfileHidesSaysSo(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	nc, err := broker.Connect(f.Connect(broker.UserName(broker.RoleGateway, ""), "gateway-httprunner"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{CreateOnly: true})
	require.NoError(t, err)
	bc, err := broker.NewClient(t.Context(), nc, stores, broker.ClientOptions{})
	require.NoError(t, err)
	require.NoError(t, bc.WaitReady(t.Context()))
	profile, err := mcp.SelectTools("httprunner")
	require.NoError(t, err)
	g := mcp.New(bc, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Tools: profile})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)

	code, out, errOut := corralMain(t, "call", "--gateway", hs.URL+"/mcp", "--log-level", "error",
		"get_foreground_app", `{"serial":"n1-p1"}`)
	assert.Equal(t, 1, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "corral call: the gateway does not list get_foreground_app: it serves the httprunner profile (--tools httprunner")
	assert.NotContains(t, errOut, "has no tool")

	code, _, errOut = corralMain(t, "call", "--gateway", hs.URL+"/mcp", "--log-level", "error", "get_foregrond_app", "{}")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, errOut, `the gateway has no tool "get_foregrond_app"`, "a tool no corral has is still misspelt")
}

// Arguments on standard input that are no JSON object say they were read there and what was
// wanted, the decoder's words after: "invalid character 'o' in literal null" alone named
// neither.
func TestCallArgumentsOnStdinSayWhereTheyCameFrom(t *testing.T) {
	for in, want := range map[string]string{
		"no":   "corral call: the arguments read from standard input (-) must be a JSON object, e.g. {\"serial\":\"S\"}: invalid character 'o' in literal null (expecting 'u')",
		"[1]":  "corral call: arguments must be a JSON object (read from standard input), got an array",
		"  \n": "corral call: standard input (-) was empty: give the arguments there as a JSON object",
	} {
		file := filepath.Join(t.TempDir(), "args.json")
		require.NoError(t, os.WriteFile(file, []byte(in), 0o600))
		stdin, err := os.Open(file)
		require.NoError(t, err)
		saved := os.Stdin
		os.Stdin = stdin
		code, out, errOut := corralMain(t, "call", "tap_xy", "-")
		os.Stdin = saved
		_ = stdin.Close()
		assert.Equal(t, 2, code, "%q: %s\n%s", in, out, errOut)
		assert.Contains(t, errOut, want, "%q", in)
	}
}
