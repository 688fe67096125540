package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/tcplink"
)

// A corral call interrupted (Ctrl-C) while it connects to NATS sent no task: it says so, not
// that the gateway withdrew the task from the device's queue or aborted it.
func TestCallInterruptedWhileConnectingSaysNothingWasSent(t *testing.T) {
	noNATSSettings(t)
	addr, accepted := tcplink.Mute(t)
	ctx, interrupt := context.WithCancel(t.Context())
	defer interrupt()
	done := make(chan error, 1)
	go func() {
		done <- captureErr(t, func() error {
			return runCall(ctx, []string{"--nats-url", "nats://" + addr, "--log-level", "error",
				"tap_xy", `{"serial":"sim-local-01","x":0.5,"y":0.5}`})
		})
	}()
	select {
	case <-accepted: // the connect is under way: nats.go waits for the server's INFO
	case err := <-done:
		t.Fatalf("corral call returned before it connected: %v", err)
	}
	interrupt() // what the first SIGINT does (signalContext)
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("corral call did not return after the interrupt")
	}
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "tap_xy: the call was interrupted (context canceled) before it was sent: nothing ran")
	assert.NotContains(t, err.Error(), "withdrew")
	assert.NotContains(t, err.Error(), "its record", "there is no task to look up")
}

// A corral call whose --timeout passed while it connected to NATS says that the call was not
// sent, not that its task was stopped.
func TestCallTimedOutWhileConnectingSaysNothingWasSent(t *testing.T) {
	noNATSSettings(t)
	addr, _ := tcplink.Mute(t)
	err := captureErr(t, func() error {
		return runCall(t.Context(), []string{"--nats-url", "nats://" + addr, "--log-level", "error", "--timeout", "300ms",
			"tap_xy", `{"serial":"sim-local-01","x":0.5,"y":0.5}`})
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gave up after --timeout 300ms: the call was not sent, reaching the farm took all of it: nothing ran")
	assert.NotContains(t, err.Error(), "the task was stopped")
}
