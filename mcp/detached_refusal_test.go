package mcp_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// QA: run_agent_task with wait: false on a node without a model answered status "running"
// with a task id whose record was at once refused; it is refused at once instead, in the words
// of the waiting form. The gateway watches the start for a minute here, not 2 s: on a loaded
// machine the node's refusal came later, and the caller heard "running".
func TestDetachedAgentTaskWithoutAModelIsRefused(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := patientGatewayClient(t, f, time.Minute)

	waiting, err := farmtest.TryCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "open Settings"})
	require.NoError(t, err)
	require.True(t, waiting.IsError, farmtest.Text(waiting))

	res, err := farmtest.TryCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "open Settings", "wait": false})
	require.NoError(t, err)
	require.True(t, res.IsError, "refused, not running: %s", farmtest.Text(res))
	contains(t, farmtest.Text(res), "lacks configuration", "OPENAI_BASE_URL", "OPENAI_MODEL")
	require.NotContains(t, farmtest.Text(res), `"running"`)
}

// patientGatewayClient serves f's farm through a gateway of its own that watches a task
// started without waiting for wait, and returns a client of it.
func patientGatewayClient(t *testing.T, f *farmtest.Farm, wait time.Duration) *client.Client {
	t.Helper()
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()),
		mcp.Options{Platforms: []device.Platform{android.Platform()}})
	mcp.SetDetachedWait(g, wait)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(g.Close)
	t.Cleanup(hs.Close)
	c, err := client.NewStreamableHttpClient(hs.URL + "/mcp")
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "seed", Version: "test"}
	init.Params.ProtocolVersion = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	return c
}
