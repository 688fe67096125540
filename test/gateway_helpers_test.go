package test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/mcp"
)

// serveGateway serves a gateway of its own over nc, beside the farm's: a farm client that has
// read the registry, and its MCP front door (opts, with Ready and Gatherer filled in) on a test
// HTTP server. It returns the client and the MCP endpoint; both stop with the test.
func serveGateway(t *testing.T, nc *nats.Conn, log *slog.Logger, opts mcp.Options) (*broker.Client, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	c, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{Log: log, Reap: true, Metrics: broker.NewClientMetrics(reg)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	opts.Ready, opts.Gatherer = c.Ready, reg
	hs := httptest.NewServer(mcp.New(c, log, mcp.NewMetrics(reg), opts).Handler())
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
	return c, hs.URL + "/mcp"
}
