package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// corral up's shutdown logs its node's "node stopped" once: the gateway in the same process,
// which hears the node's down event, says in its own words that it heard it ("node stopped
// (its down event)").
func TestUpLogsNodeStoppedOnce(t *testing.T) {
	addr := freeLoopbackAddr(t)
	data := filepath.Join(t.TempDir(), "data")
	logged := captureStderr(t, func() {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			done <- runUp(ctx, []string{"--data", data, "--nats-port", "-1", "--http", addr,
				"--sim", "1", "--adb", "off", "--usbmuxd", "off", "--log-level", "info"})
		}()
		dialUpGateway(t, addr, done)
		cancel()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Error("corral up never returned after it was stopped")
		}
	})
	// The gateway's line, when it heard the event before it stopped, is its own.
	assert.Equal(t, 1, strings.Count(logged, `msg="node stopped"`), logged)
}
