package main

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// Two gateways started with the same --auth-policy (a token_sha256 only) key session ids with
// the farm's one gateway secret, made by the first and read by the second: each takes the
// other's ids, as replicas behind a load balancer and a restarted gateway must.
func TestStartedGatewaysShareTheFarmsSecret(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	const token = "ci-token-5e1d9c3a7b"
	sum := sha256.Sum256([]byte(token))
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(policy, []byte("principals:\n  - name: ci\n    token_sha256: "+hex.EncodeToString(sum[:])+"\n"), 0o600))

	start := func() string {
		nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "corral-gateway"}, slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		f := newFlags("gateway")
		gf := f.gatewayFlags()
		require.NoError(t, f.parse([]string{"--http", "127.0.0.1:0", "--auth-policy", policy, "--events-max-bytes", "8MiB",
			"--screenshots-max-bytes", "8MiB", "--sessions-max-bytes", "4MiB"}))
		gw, err := startGateway(t.Context(), nc, gf, []device.Platform{android.Platform()}, newRegistry(), slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		t.Cleanup(gw.stop)
		return "http://" + gw.addr + "/mcp"
	}
	post := func(url, session, body string) *http.Response {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp
	}
	first, second := start(), start()
	resp := post(first, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	id := resp.Header.Get("Mcp-Session-Id")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotEmpty(t, id)
	assert.Equal(t, http.StatusOK, post(second, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).StatusCode,
		"the second gateway refuses the first's session id: their secrets differ")
}
