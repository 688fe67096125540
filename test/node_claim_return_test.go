package test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A node whose id claim went while it was silent (stopped for longer than the farm waits: the
// claim expired; here the key is deleted, which the node finds the same way) takes its id again
// and goes on serving: no other node took it, so it is not a takeover and the node does not
// stop (SCHEDULER.md rule 7: a node that returns is fenced, not gone).
func TestNodeWhoseClaimWentTakesItAgain(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Auth: true})
	node, out, ok := startCorralNode(t, f, "n4")
	require.True(t, ok, "the node did not start:\n%s", out)
	f.WaitDevices(2, broker.StateOnline)

	nc, err := broker.Connect(f.Connect(broker.UserName(broker.RoleNode, "n4"), "claim-remover"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	kv, err := js.KeyValue(t.Context(), broker.NodeBucket)
	require.NoError(t, err)
	require.NoError(t, kv.Delete(t.Context(), "n4"))

	var logged strings.Builder
	deadline := time.After(30 * time.Second)
	for !strings.Contains(logged.String(), "node id claimed again") {
		select {
		case l, ok := <-node.lines:
			if !ok {
				t.Fatalf("the node stopped when its claim went:\n%s%s", out, logged.String())
			}
			logged.WriteString(l + "\n")
		case <-deadline:
			t.Fatalf("the node did not claim its id again within 30s:\n%s%s", out, logged.String())
		}
	}
	require.NotContains(t, logged.String(), "taken over")
	_, err = kv.Get(t.Context(), "n4")
	require.NoError(t, err, "the node's claim is not back in %s", broker.NodeBucket)

	// It goes on serving, and still holds its id against a second node.
	farmtest.MustCall(t, f.Client("alice"), "tap_xy", args("serial", "sim-n4-01", "x", 0.5, "y", 0.5))
	_, out, ok = startCorralNode(t, f, "n4")
	require.False(t, ok, "a second node n4 started beside the one that took its id again:\n%s", out)
	select {
	case <-node.done:
		t.Fatalf("the node stopped: %v", node.err)
	default:
	}
}
