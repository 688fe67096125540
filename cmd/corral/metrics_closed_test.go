package main

import (
	"net/http"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node or vision worker whose NATS connection is closed for good (it no longer reconnects)
// fails /healthz, saying why, so that the orchestrator restarts it; it answered ok and stayed
// down until restarted by hand. /readyz says the same.
func TestMetricsHealthzFailsOnceNATSIsClosedForGood(t *testing.T) {
	s := runTestServer(t, &server.Options{Port: -1})
	nc, err := nats.Connect(s.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	base := serveProbesOf(t, nc)

	code, body := probeGet(t, base+"/healthz")
	assert.Equal(t, http.StatusOK, code, body)

	nc.Close()
	const why = "the NATS connection is closed for good and no longer reconnects: restart this process\n"
	code, body = probeGet(t, base+"/healthz")
	assert.Equal(t, http.StatusServiceUnavailable, code, body)
	assert.Equal(t, "unhealthy: "+why, body)
	code, body = probeGet(t, base+"/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code, body)
	assert.Equal(t, "not ready: "+why, body)
}
