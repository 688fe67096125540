package main

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// corral devices forget --node ID removes a node stopped for good's offline devices from the
// registry, with the admin's context, and says which: they stayed offline there until a node
// with that id started again, and nothing removed them. It refuses while the node runs, and
// to an operator; the other node's devices stay, and the gateways drop the removed ones.
func TestDevicesForgetRemovesAGoneNodesDevices(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 2, Quiet: true, Auth: true})
	forget := func(user, node string) (int, string) {
		var code int
		out := captureOutput(t, func() {
			code = realMain([]string{"devices", "forget", "--node", node, "--nats-context", f.Context(user), "--timeout", "20s"})
		})
		return code, out
	}
	admin, operator := broker.UserName(broker.RoleAdmin, ""), broker.UserName(broker.RoleOperator, "")

	code, out := forget(admin, "n2")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "node n2 is running", "a running node's devices")

	f.KillNode("n2")
	var removed string
	for deadline := time.Now().Add(20 * time.Second); ; { // until the gateways see n2 gone, and its claim expires
		if code, removed = forget(admin, "n2"); code == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "n2's devices were not removed once it was gone: %s", removed)
	}
	assert.Contains(t, removed, "Removed 2 offline device(s) of node n2")
	assert.Contains(t, removed, "n2-p1, n2-p2")
	farmtest.Eventually(t, 10*time.Second, func() bool {
		for _, d := range f.Devices() {
			if d.Node == "n2" {
				return false
			}
		}
		return true
	}, "the gateway still lists n2's devices")
	serials := []string{}
	for _, d := range f.Devices() {
		serials = append(serials, d.Serial)
	}
	assert.ElementsMatch(t, []string{"n1-p1", "n1-p2"}, serials, "the other node's devices")

	code, out = forget(admin, "n2")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "nothing to remove", "forgetting again")

	// A device of a gone node that is not offline (a node at work, not gone) stops the removal.
	nc, err := broker.Connect(broker.ConnectOptions{Context: f.Context(admin)}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	registry, err := js.KeyValue(t.Context(), broker.RegistryBucket)
	require.NoError(t, err)
	busy, _ := json.Marshal(broker.DeviceEntry{V: broker.WireVersion, Serial: "n2-p9", Platform: "android", Node: "n2", State: broker.StateBusy})
	_, err = registry.Put(t.Context(), broker.RegistryKey("n2", "n2-p9"), busy)
	require.NoError(t, err)
	code, out = forget(admin, "n2")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "n2-p9 is busy; nothing removed")
	_, err = registry.Get(t.Context(), broker.RegistryKey("n2", "n2-p9"))
	assert.NoError(t, err, "the busy device was removed")

	code, out = forget(operator, "n1")
	assert.Equal(t, 1, code, out)
	assert.True(t, strings.Contains(out, "is running") || strings.Contains(out, "NATS refused"), out)
	f.KillNode("n1")
	farmtest.Eventually(t, 20*time.Second, func() bool {
		code, out = forget(operator, "n1")
		return !strings.Contains(out, "is running") && !strings.Contains(out, "not all offline")
	}, "n1 never looked gone: %s", out)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "corral devices forget runs as the admin role", "an operator removed devices")
	n1 := 0
	for _, d := range f.Devices() {
		if d.Node == "n1" {
			n1++
		}
	}
	assert.Equal(t, 2, n1, "an operator's refused removal removed devices")
}
