//go:build vision

package main

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVisionServesItsProbes: corral vision's metrics port answers /healthz while the process
// runs and /readyz as its NATS connection is: ready, 503 in the gateway's words while NATS is
// gone (the worker takes no requests then), ready again once NATS is back. The chart's vision
// probes use them.
func TestVisionServesItsProbes(t *testing.T) {
	s := runTestServer(t, &server.Options{Port: -1})
	port := s.Addr().(*net.TCPAddr).Port
	addr := freeMetricsAddr(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- runVision(ctx, []string{"--nats-url", s.ClientURL(), "--metrics", addr, "--parallel", "1", "--log-level", "error"})
	}()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	base := "http://" + addr
	// The engine loads Tesseract before the port answers: a minute on a loaded machine.
	require.Eventually(t, func() bool { code, _ := probeGet(t, base+"/readyz"); return code == http.StatusOK },
		time.Minute, 20*time.Millisecond, "corral vision's /readyz never ready")

	s.Shutdown()
	require.Eventually(t, func() bool { code, _ := probeGet(t, base+"/readyz"); return code == http.StatusServiceUnavailable },
		30*time.Second, 20*time.Millisecond, "corral vision's /readyz still ready with NATS gone")
	_, body := probeGet(t, base+"/readyz")
	assert.Equal(t, "not ready: not connected to NATS (RECONNECTING)\n", body)
	code, body := probeGet(t, base+"/healthz")
	assert.Equal(t, http.StatusOK, code, "/healthz with NATS gone: %s", body)

	runTestServer(t, &server.Options{Port: port})
	require.Eventually(t, func() bool { code, _ := probeGet(t, base+"/readyz"); return code == http.StatusOK },
		30*time.Second, 20*time.Millisecond, "corral vision's /readyz not ready after NATS came back on port "+strconv.Itoa(port))
}
