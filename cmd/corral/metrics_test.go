package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probeGet answers a GET of url: its status and body ("" and 0 when nothing answers).
func probeGet(t *testing.T, url string) (int, string) {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// freeMetricsAddr is a loopback address with a port nothing listens on (serveMetrics takes an address).
func freeMetricsAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// serveProbesOf serves the metrics server of a process connected by nc (its /healthz, /readyz
// and /metrics) on a free address, and returns its base URL.
func serveProbesOf(t *testing.T, nc *nats.Conn) string {
	t.Helper()
	addr := freeMetricsAddr(t)
	stop, err := serveMetrics(addr, prometheus.NewRegistry(), slog.New(slog.DiscardHandler), natsConnected(nc))
	require.NoError(t, err)
	t.Cleanup(stop)
	return "http://" + addr
}

// TestMetricsServerProbes: the node's metrics server answers /healthz while the process runs,
// and /readyz 503 with the gateway's words while its NATS connection is down, 200 once it is
// back (the chart's node probes use them).
func TestMetricsServerProbes(t *testing.T) {
	s := runTestServer(t, &server.Options{Port: -1})
	port := s.Addr().(*net.TCPAddr).Port
	nc, err := nats.Connect(s.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(nc.Close)

	base := serveProbesOf(t, nc)

	code, body := probeGet(t, base+"/healthz")
	assert.Equal(t, http.StatusOK, code, body)
	code, body = probeGet(t, base+"/readyz")
	assert.Equal(t, http.StatusOK, code, body)
	code, _ = probeGet(t, base+"/metrics")
	assert.Equal(t, http.StatusOK, code)

	s.Shutdown()
	require.Eventually(t, func() bool { code, _ := probeGet(t, base+"/readyz"); return code == http.StatusServiceUnavailable },
		30*time.Second, 20*time.Millisecond, "/readyz still ready with NATS down")
	_, body = probeGet(t, base+"/readyz")
	assert.Equal(t, "not ready: not connected to NATS (RECONNECTING)\n", body)
	code, body = probeGet(t, base+"/healthz")
	assert.Equal(t, http.StatusOK, code, "/healthz with NATS down: %s", body)

	runTestServer(t, &server.Options{Port: port})
	require.Eventually(t, func() bool { code, _ := probeGet(t, base+"/readyz"); return code == http.StatusOK },
		30*time.Second, 20*time.Millisecond, "/readyz not ready after NATS came back on port "+strconv.Itoa(port))
}

// TestMetricsServerReadyWithoutChecks: with no readiness checks, /readyz is ready as soon as
// the server answers.
func TestMetricsServerReadyWithoutChecks(t *testing.T) {
	addr := freeMetricsAddr(t)
	stop, err := serveMetrics(addr, prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(stop)
	code, body := probeGet(t, "http://"+addr+"/readyz")
	assert.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, "ready\n", body)
}

// TestNodeServesItsProbesAndModelMetrics: corral node's metrics port answers /readyz as its
// own NATS connection is (ready, then 503 while NATS is gone), and carries the agent model's
// series from the start, before any agent task ran.
func TestNodeServesItsProbesAndModelMetrics(t *testing.T) {
	s := runTestServer(t, &server.Options{Port: -1, JetStream: true, StoreDir: t.TempDir()})
	addr := freeMetricsAddr(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- runNode(ctx, []string{"--nats-url", s.ClientURL(), "--node-id", "m1", "--sim", "1", "--adb", "off",
			"--usbmuxd", "off", "--metrics", addr, "--log-level", "error"})
	}()
	t.Cleanup(func() { cancel(); <-done })
	base := "http://" + addr
	require.Eventually(t, func() bool { code, _ := probeGet(t, base+"/readyz"); return code == http.StatusOK },
		30*time.Second, 20*time.Millisecond, "corral node's /readyz never ready")
	_, metrics := probeGet(t, base+"/metrics")
	assert.Contains(t, metrics, `corral_model_requests_total{outcome="ok"} 0`)
	assert.Contains(t, metrics, "corral_agent_tasks_running 0")
	assert.Contains(t, metrics, `corral_node_store_writes_dropped_total{node="m1"} 0`, "the stores' health (a full disk) is watched")

	s.Shutdown()
	require.Eventually(t, func() bool { code, _ := probeGet(t, base+"/readyz"); return code == http.StatusServiceUnavailable },
		30*time.Second, 20*time.Millisecond, "corral node's /readyz still ready with NATS gone")
}
