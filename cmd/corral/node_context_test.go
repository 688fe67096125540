package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A node started with another node's context or the gateway's is refused its id's claim by
// NATS, and says so at once, naming the context to use (it waited for the claim's timeout and
// then asked whether the user may write the key).
func TestNodeWithAnotherUsersContextIsRefusedByName(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Auth: true, Quiet: true})
	for user, want := range map[string]string{
		"node-n3": "a node's NATS user may do this for its own node id only; use the NATS context of the node it is for " +
			"(docs/operations.md, NATS roles). corral node --node-id n2 runs as the NATS user node-n2: give --nats-context with its context, node-n2.json",
		"gateway": "corral node runs as the node role: give --nats-context with its context, node-n2.json",
	} {
		err := runNode(t.Context(), []string{"--nats-context", f.Context(user), "--node-id", "n2", "--adb", "off",
			"--usbmuxd", "off", "--metrics", "", "--log-level", "error"})
		require.Error(t, err, user)
		msg := err.Error()
		assert.Contains(t, msg, `claim node id n2 in corral_nodes: NATS refused to let NATS user "`+user+`" publish to "$KV.corral_nodes.n2"`)
		assert.Contains(t, msg, want)
		assert.NotContains(t, msg, "context deadline exceeded", "the refusal waited for the claim's timeout")
		// corral up writes the context of its own node only: n2's comes from nats-auth.
		assert.Contains(t, msg, "corral nats-auth --node n2 writes it into its --dir; corral up writes DATA/nats/node-n2.json only for its own --node-id", user)
		assert.NotContains(t, msg, "corral up writes it into DATA/nats/", user)
	}
}
