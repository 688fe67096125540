package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// Ctrl-C during drain --wait says the wait was interrupted and that the node stays draining,
// with the undo: it said "node n1 is not idle after --timeout 1m0s", a timeout that had not
// passed.
func TestDrainWaitInterruptedSaysTheNodeStaysDraining(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	dev := f.Devices()[0]
	c := f.Client("holder")
	farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": dev.Serial})
	t.Cleanup(func() {
		_ = runDrain(context.Background(), []string{dev.Node, "--undo", "--nats-url", f.URL, "--log-level", "error"})
	})
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer nc.Close()
	draining := func() bool {
		ans, err := broker.DrainNode(t.Context(), nc, dev.Node, broker.DrainRequest{V: broker.WireVersion, Action: broker.DrainStatus})
		return err == nil && ans.Draining
	}

	ctx, interrupt := context.WithCancel(t.Context())
	defer interrupt()
	done := make(chan error, 1)
	go func() {
		done <- captureErr(t, func() error {
			return runDrain(ctx, []string{dev.Node, "--wait", "--timeout", "1m", "--nats-url", f.URL, "--log-level", "error"})
		})
	}()
	farmtest.Eventually(t, 20*time.Second, draining, "node %s draining", dev.Node)
	interrupt() // what the first SIGINT does (signalContext)
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("drain --wait did not return after the interrupt")
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "interrupted before it was idle: node "+dev.Node+" is draining")
	assert.Contains(t, err.Error(), "it stays draining")
	assert.Contains(t, err.Error(), "`corral drain "+dev.Node+" --undo` takes new work again")
	assert.NotContains(t, err.Error(), "--timeout")
	assert.True(t, draining(), "the interrupted wait undid the drain")
}

// --timeout coming while a status request is on its way is still the timeout, with the
// node's last answer: it said "node n9 did not answer (… context deadline exceeded)".
func TestDrainWaitTimeoutDuringAStatusRequest(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer nc.Close()
	// Node n9 answers the drain at once, busy; its status requests it never answers.
	release := make(chan struct{})
	defer close(release)
	sub, err := nc.Subscribe(fmt.Sprintf(broker.NodeGroupT, "n9")+"."+broker.EndpointDrain, func(m *nats.Msg) {
		var req broker.DrainRequest
		_ = json.Unmarshal(m.Data, &req)
		if req.Action == broker.DrainStatus {
			<-release
			return
		}
		ans, _ := json.Marshal(broker.DrainAnswer{V: broker.WireVersion, Node: "n9", Draining: true, Devices: 1, Leases: 1})
		_ = m.Respond(ans)
	})
	require.NoError(t, err)
	defer sub.Unsubscribe() //nolint:errcheck
	require.NoError(t, nc.Flush())

	err = captureErr(t, func() error {
		return runDrain(t.Context(), []string{"n9", "--wait", "--timeout", "1s", "--nats-url", f.URL, "--log-level", "error"})
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "node n9 is not idle after --timeout 1s: node n9 is draining")
	assert.Contains(t, err.Error(), "1 lease held")
	assert.NotContains(t, err.Error(), "did not answer")
}

// Ctrl-C while the drain request itself is on its way asks the node's state and says it: the
// node may have taken the drain. It said "drain request to node n9: context canceled", and
// TestDrainWaitInterruptedSaysTheNodeStaysDraining failed so when its interrupt came that early.
func TestDrainInterruptedBeforeTheNodeAnsweredSaysItsState(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer nc.Close()
	for _, state := range []string{"draining", "not draining", "silent"} {
		// Node n9 takes the drain and does not answer it; its status it answers.
		asked := make(chan struct{})
		sub, err := nc.Subscribe(fmt.Sprintf(broker.NodeGroupT, "n9")+"."+broker.EndpointDrain, func(m *nats.Msg) {
			var req broker.DrainRequest
			_ = json.Unmarshal(m.Data, &req)
			if req.Action == broker.DrainStart {
				close(asked)
				return
			}
			if state == "silent" {
				return
			}
			ans, _ := json.Marshal(broker.DrainAnswer{V: broker.WireVersion, Node: "n9", Draining: state == "draining", Since: time.Now(), By: "operator x", Devices: 1})
			_ = m.Respond(ans)
		})
		require.NoError(t, err)
		require.NoError(t, nc.Flush())

		ctx, interrupt := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			done <- captureErr(t, func() error {
				return runDrain(ctx, []string{"n9", "--nats-url", f.URL, "--log-level", "error"})
			})
		}()
		select {
		case <-asked:
		case <-time.After(30 * time.Second):
			t.Fatal("the drain request did not reach node n9")
		}
		interrupt()
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("drain did not return after the interrupt")
		}
		require.NoError(t, sub.Unsubscribe())
		require.Error(t, err)
		switch state {
		case "draining":
			assert.Contains(t, err.Error(), "node n9 is draining")
			assert.Contains(t, err.Error(), "it stays draining")
			assert.Contains(t, err.Error(), "`corral drain n9 --undo` takes new work again")
		case "not draining":
			assert.Contains(t, err.Error(), "interrupted before node n9 took the drain: node n9 takes new work (not draining)")
		default:
			assert.Contains(t, err.Error(), "interrupted before node n9 answered")
			assert.Contains(t, err.Error(), "it may be draining: `corral drain n9 --status` shows it")
		}
	}
}
