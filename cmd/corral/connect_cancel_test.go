package main

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/tcplink"
)

// Ctrl-C while a command's connect to NATS waits for a server that accepted the connection
// but does not answer ends the command at once: the try under way ran out its connect
// timeout (2 s) first, as broker.Connect took no context.
func TestCommandConnectStopsWhenCancelled(t *testing.T) {
	noNATSSettings(t)
	addr, accepted := tcplink.Mute(t)
	ctx, interrupt := context.WithCancel(t.Context())
	defer interrupt()
	done := make(chan error, 1)
	go func() {
		done <- captureErr(t, func() error {
			return runDevices(ctx, []string{"--nats-url", "nats://" + addr, "--log-level", "error"})
		})
	}()
	var err error
	select {
	case <-accepted: // the try is under way: nats.go waits for the server's INFO
	case err = <-done:
		t.Fatalf("corral devices returned before it connected: %v", err)
	}
	interrupt() // what the first SIGINT does (signalContext)
	at := time.Now()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("corral devices did not return after the interrupt")
	}
	// Well within the connect timeout: a try that ran it out returns about a timeout later.
	assert.Less(t, time.Since(at), nats.DefaultTimeout/2, "the connect ran on after the interrupt")
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "stopped before NATS answered")
	assert.NotContains(t, err.Error(), "is it running?", "the hint of a server that did not answer, to a user who stopped the wait")
}
