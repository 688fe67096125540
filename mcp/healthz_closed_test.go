package mcp_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A gateway whose NATS connection is closed for good (it no longer reconnects) fails /healthz,
// saying why, so that the orchestrator restarts it: it answered ok and stayed down for good.
func TestHealthzFailsOnceNATSIsClosedForGood(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{})
	nc, err := broker.Connect(f.Connect("", "gateway"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(func() { cancel(); nc.Close() })
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{CreateOnly: true})
	require.NoError(t, err)
	farm, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{})
	require.NoError(t, err)
	g := mcp.New(farm, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{})
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(srv.Close)

	get := func() (int, string) {
		resp, err := http.Get(srv.URL + "/healthz")
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get()
	assert.Equal(t, http.StatusOK, code, body)

	nc.Close()
	code, body = get()
	assert.Equal(t, http.StatusServiceUnavailable, code, body)
	assert.Contains(t, body, "unhealthy: the NATS connection is closed for good and no longer reconnects: restart this process")
}
