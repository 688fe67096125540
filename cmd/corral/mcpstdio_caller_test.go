package main

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Two agents bridged by corral mcp-stdio with one token and one client name, on the newest
// protocol revision (no MCP session): each bridge is its own holder (its own Corral-Caller),
// so the second queues for the first's device and gets it when the first lets it go. Without
// the header they were one holder, and the second was told "You hold it" at once.
func TestTwoBridgesOfOneTokenQueueAtTheGateway(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	url, tokenFile := policyGateway(t, f.Gateway().Client)
	serial := f.Devices()[0].Serial
	first, second := stdioBridge(t, url, tokenFile), stdioBridge(t, url, tokenFile)

	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, first, "acquire_device", map[string]any{"serial": serial}), &held)
	answer := farmtest.Go(t, second, "acquire_device", map[string]any{"serial": serial, "wait_seconds": 60})
	res := handOver(t, f.Gateway().Client, first, serial, held.Lease.Handle, answer, "the second bridge")
	var got mcp.AcquireResult
	farmtest.Structured(t, res, &got)
	assert.Equal(t, serial, got.Lease.Serial)
	assert.Regexp(t, `^ci \(agent\) session [0-9a-f]{10}$`, got.Lease.Holder, "not the token's principal and the client's name, with its session's tag")
	assert.NotEqual(t, held.Lease.Holder, got.Lease.Holder, "the two bridges show as one holder")
}

// policyGateway serves a gateway over farm whose auth policy knows one principal, ci, and
// returns its MCP endpoint and a file holding ci's token.
func policyGateway(t *testing.T, farm *broker.Client) (url, tokenFile string) {
	t.Helper()
	dir := t.TempDir()
	const token = "ci-token-4b7e2a9d1c6f"
	tokenFile = filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(token+"\n"), 0o600))
	policy := filepath.Join(dir, "policy.yaml")
	require.NoError(t, os.WriteFile(policy, []byte("principals:\n  - name: ci\n    token: "+token+"\n"), 0o600))
	p, err := mcp.LoadPolicy(policy)
	require.NoError(t, err)
	g := mcp.New(farm, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Policy: p, Ready: farm.Ready})
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); g.Close() })
	return srv.URL + "/mcp", tokenFile
}

// stdioBridge runs corral mcp-stdio to url with the token in tokenFile until the test ends,
// and returns an MCP client on its stdio, initialized as "agent" in the protocol's newest
// revision.
func stdioBridge(t *testing.T, url, tokenFile string) *client.Client {
	t.Helper()
	inR, inW := io.Pipe()   // the client's messages, the bridge's stdin
	outR, outW := io.Pipe() // the bridge's stdout
	done := make(chan error, 1)
	go func() {
		done <- bridgeStdio(t.Context(), []string{"--gateway", url, "--token-file", tokenFile, "--log-level", "error"}, inR, outW)
	}()
	c := client.NewClient(transport.NewIO(outR, inW, nil))
	t.Cleanup(func() {
		_ = c.Close()    // the bridge reads the end of its stdin
		_ = outW.Close() // and what it still writes goes nowhere, nor waits for a reader
		select {
		case err := <-done:
			assert.NoError(t, err, "corral mcp-stdio")
		case <-time.After(30 * time.Second):
			t.Error("corral mcp-stdio did not stop at the end of its stdin")
		}
	})
	require.NoError(t, c.Start(t.Context()))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "agent", Version: "test"}
	ir, err := c.Initialize(t.Context(), init)
	require.NoError(t, err)
	require.Equal(t, mcpgo.LATEST_PROTOCOL_VERSION, ir.ProtocolVersion, "not the revision without sessions")
	return c
}
