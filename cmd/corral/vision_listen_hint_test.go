//go:build vision

package main

import (
	"net"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral vision with its --metrics address taken names the flag to change, as corral node does.
func TestVisionMetricsAddressInUseNamesTheFlag(t *testing.T) {
	s := runTestServer(t, &server.Options{Port: -1, JetStream: true, StoreDir: t.TempDir()})
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = taken.Close() })
	err = runVision(t.Context(), []string{"--nats-url", s.ClientURL(), "--metrics", taken.Addr().String(), "--parallel", "1", "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "address already in use")
	assert.Contains(t, err.Error(), "another corral vision running? choose another address with --metrics")
}
