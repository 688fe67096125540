package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/vision"
)

// hungFarm is a node's real vision client on a real NATS server where a worker listens on the
// workers' ping and never answers: a `corral vision` stopped with kill -STOP.
func hungFarm(t *testing.T) *vision.Client {
	t.Helper()
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	hung, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(hung.Close)
	_, err = hung.Subscribe(vision.PingSubject, func(*nats.Msg) {}) // hears, never answers
	require.NoError(t, err)
	require.NoError(t, hung.Flush())
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return vision.NewClient(nc, time.Minute)
}

// A hung worker costs a vision call the ping's own short bound, not the minute of an attempt:
// tap_ocr and peek hear vision_unavailable with what to check, not a driver_error after the
// call's whole deadline.
func TestVisionToolsDoNotWaitOnAHungWorker(t *testing.T) {
	v := hungFarm(t)
	p := simIn(t, "com.corral.shop")
	run := func(tool, args string) (Output, time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		began := time.Now()
		out, err := DefaultOpsWith(OpsConfig{Vision: v})[tool].Run(ctx, &Task{Driver: p, Args: json.RawMessage(args)})
		return out, time.Since(began), err
	}

	_, took, err := run("tap_ocr", `{"text":"Checkout"}`)
	require.Error(t, err)
	assert.Equal(t, broker.CodeNoVision, ErrorCode(err), "%v", err)
	assert.Contains(t, err.Error(), "did not answer the ping within 2s")
	assert.Contains(t, err.Error(), "/metrics")
	assert.NotContains(t, err.Error(), "start one", "workers listen: starting one is not the fix")
	assert.Less(t, took, 15*time.Second, "the ping's bound, not the call's deadline")

	p.HideTree(true)
	out, took, err := run("peek", `{}`)
	require.NoError(t, err)
	r := out.Data.(PeekResult)
	assert.Empty(t, r.Source)
	assert.Contains(t, r.Message, "did not answer the ping within 2s")
	assert.Less(t, took, 15*time.Second, "the ping's bound, not the call's deadline")
}
