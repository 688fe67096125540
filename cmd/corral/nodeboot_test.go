package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// The boot id a node's id claim records is the one its heartbeats carry: a refusal naming
// the holder's boot can be matched with that node's heartbeats, micro service and logs.
func TestNodeClaimRecordsTheNodesOwnBootID(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "test"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	beats := make(chan *nats.Msg, 16)
	sub, err := nc.ChanSubscribe(fmt.Sprintf(broker.HeartbeatT, "n1"), beats)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- runNode(ctx, []string{"--nats-url", ns.ClientURL(), "--node-id", "n1", "--adb", "off", "--usbmuxd", "off",
			"--metrics", "", "--log-level", "error"})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			assert.ErrorIs(t, err, context.Canceled, "stopped while it was still starting")
		}
	}()
	var beat broker.Heartbeat
	select {
	case m := <-beats:
		require.NoError(t, json.Unmarshal(m.Data, &beat))
	case err := <-done:
		done <- err
		t.Fatalf("the node stopped before its first heartbeat: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("no heartbeat from the node")
	}
	require.NotEmpty(t, beat.Boot)

	js, err := jetstream.New(nc)
	require.NoError(t, err)
	kv, err := js.KeyValue(t.Context(), broker.NodeBucket)
	require.NoError(t, err)
	e, err := kv.Get(t.Context(), "n1")
	require.NoError(t, err, "the node runs, so its claim is there")
	var claim struct {
		Boot string `json:"boot"`
	}
	require.NoError(t, json.Unmarshal(e.Value(), &claim))
	assert.Equal(t, beat.Boot, claim.Boot, "the claim names another boot than the node's heartbeats")
}
