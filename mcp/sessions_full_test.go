package mcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/mcp"
)

// fillSessionsBucket caps the farm's sessions bucket near what it holds and fills it, so that
// NATS refuses every session write as when --sessions-max-bytes is reached.
func fillSessionsBucket(t *testing.T, f *farmtest.Farm) {
	t.Helper()
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx := t.Context()
	st, err := js.Stream(ctx, "KV_"+broker.SessionBucket)
	require.NoError(t, err)
	info, err := st.Info(ctx)
	require.NoError(t, err)
	cfg := info.Config
	cfg.MaxBytes = int64(info.State.Bytes) + 16<<10
	_, err = js.UpdateStream(ctx, cfg)
	require.NoError(t, err)
	kv, err := js.KeyValue(ctx, broker.SessionBucket)
	require.NoError(t, err)
	filler := []byte(strings.Repeat("x", 1024))
	for i := 0; ; i++ {
		if _, err := kv.Put(ctx, fmt.Sprintf("filler%d", i), filler); err != nil {
			require.True(t, broker.SessionsFull(err), "filling the bucket: %v", err)
			return
		}
		require.Less(t, i, 1000, "the bucket takes no end of writes")
	}
}

// With the sessions bucket full, sessions that select a device and give it back log the failed
// write of their client name once (a minute), not on each request of each session: 7,000
// sessions logged 6,327 lines in 20 s. And release_device {} after a selection that could not
// be remembered says so and asks for the lease, where it said select_device makes its lease
// the default (the device then stayed held until its lease expired).
func TestFullSessionsBucketLogsOnceAndReleaseAsksForTheLease(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	logs := &logtest.Buffer{}
	g := mcp.New(f.Gateway().Client, slog.New(slog.NewTextHandler(logs, nil)), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{})
	t.Cleanup(g.Close)
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(srv.Close)
	fillSessionsBucket(t, f)

	const sessions = 4
	for i := range sessions {
		c, err := client.NewStreamableHttpClient(srv.URL + "/mcp")
		require.NoError(t, err)
		require.NoError(t, c.Start(context.Background()))
		init := mcpgo.InitializeRequest{}
		init.Params.ClientInfo = mcpgo.Implementation{Name: fmt.Sprintf("qa-%d", i), Version: "1"}
		init.Params.ProtocolVersion = "2025-06-18" // a revision with sessions
		_, err = c.Initialize(context.Background(), init)
		require.NoError(t, err)

		var sel mcp.SelectDeviceResult
		res := farmtest.MustCall(t, c, "select_device", map[string]any{"serial": "n1-p1"})
		farmtest.Structured(t, res, &sel)
		require.Contains(t, sel.Message, "could not be remembered for this session")
		require.NotEmpty(t, sel.Lease.Handle)
		require.Contains(t, sel.Message, sel.Lease.Handle, "the answer names the lease to pass")

		res = farmtest.Call(t, c, "release_device", map[string]any{})
		text := farmtest.Text(res)
		require.True(t, res.IsError, "release_device {} with nothing stored: %s", text)
		require.Contains(t, text, "selection of n1-p1 could not be stored")
		require.Contains(t, text, "pass lease")
		require.NotContains(t, text, "select_device makes its lease the default")

		res = farmtest.Call(t, c, "release_device", map[string]any{"lease": sel.Lease.Handle})
		require.False(t, res.IsError, "release_device with the lease: %s", farmtest.Text(res))
		_ = c.Close()
	}
	const line = "the session's client name could not be kept in NATS"
	require.Equal(t, 1, strings.Count(logs.String(), line), "%d sessions, within a minute:\n%s", sessions, logs)
}
