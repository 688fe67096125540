package main

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral tasks reads as many task records as --scan says; cut short, it says how far back it
// read and how to read further (--scan N, --scan 0); --scan 0 reads them all; a negative
// --scan is refused with exit 2.
func TestTasksScanFlag(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	noNATSSettings(t)
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	for i := range 120 { // the oldest aborted, then 119 that succeeded
		r := broker.TaskResult{V: broker.WireVersion, ID: fmt.Sprintf("t_%03d", i), Serial: "d1", Node: "n1", Tool: "tap_xy",
			Outcome: broker.OutcomeSucceeded, Finished: time.Now()}
		if i == 0 {
			r.Outcome = broker.OutcomeAborted
		}
		b, err := r.AppendJSON(nil)
		require.NoError(t, err)
		_, err = stores.JS.Publish(t.Context(), fmt.Sprintf(broker.EventTaskT, r.Node, r.ID), b)
		require.NoError(t, err)
	}
	tasks := func(args ...string) (string, int) {
		var code int
		out := captureOutput(t, func() {
			code = realMain(append([]string{"tasks", "--nats-url", ns.ClientURL(), "--outcome", "aborted"}, args...))
		})
		return out, code
	}
	out, code := tasks("--scan", "50")
	assert.Equal(t, 0, code, out)
	assert.NotContains(t, out, "t_000 ")
	assert.Contains(t, out, "searched the newest 50 task records, back to ")
	assert.Contains(t, out, "--scan 500 reads ten times as many, --scan 0 all the stream keeps")
	out, code = tasks("--scan", "0")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "t_000 ")
	assert.NotContains(t, out, "searched the newest")
	out, code = tasks() // the default reads far more than 120
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "t_000 ")
	out, code = tasks("--scan", "-1")
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, "--scan -1: give how many task records to read at most")
}
