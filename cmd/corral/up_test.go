package main

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral up on an address beyond this machine without --auth-policy refuses to start with the
// documented words (docs/auth.md) before anything starts: no NATS, no credentials or
// JetStream data in a fresh --data, no node.
func TestUpRefusesAnOpenListenerBeforeStarting(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	err := runUp(t.Context(), []string{"--data", data, "--nats-port", "-1", "--http", "0.0.0.0:0", "--sim", "1", "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--http 0.0.0.0:0 listens beyond this machine, and without --auth-policy anyone who reaches it can drive every device: "+
		"give --auth-policy FILE (docs/auth.md), listen on 127.0.0.1, or, if a proxy or network policy in front already authenticates callers, pass --insecure-no-auth")
	_, statErr := os.Stat(data)
	assert.True(t, os.IsNotExist(statErr), "the refused corral up wrote --data %s (%v)", data, statErr)
}

// corral up whose --http address is taken (another corral) stops before it starts NATS, the
// node or a device: --data stays as it was.
func TestUpRefusesATakenHTTPAddressBeforeStarting(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = taken.Close() })
	addr := taken.Addr().String()
	data := filepath.Join(t.TempDir(), "data")
	err = runUp(t.Context(), []string{"--data", data, "--nats-port", "-1", "--http", addr, "--sim", "1", "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "listen on "+addr+": ")
	assert.Contains(t, err.Error(), "is another corral running? choose another address with --http")
	_, statErr := os.Stat(data)
	assert.True(t, os.IsNotExist(statErr), "corral up started NATS in --data %s before it found --http taken (%v)", data, statErr)
}
