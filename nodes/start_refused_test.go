package nodes_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A node whose NATS user lacks a right its start needs (users made by an older corral
// nats-auth: no pulling from its registry watch) ends its start at once with NATS's refusal
// and what to do, rather than waiting for ever while it logs the refusal every 10 s.
func TestStartEndsAtARefusal(t *testing.T) {
	withoutPull := func(r broker.Role, node string) (broker.Permissions, error) {
		p, err := broker.PermissionsFor(r, node)
		if r == broker.RoleNode {
			var kept []string
			for _, s := range p.PublishAllow {
				if !strings.Contains(s, "CONSUMER.MSG.NEXT") {
					kept = append(kept, s)
				}
			}
			p.PublishAllow = kept
		}
		return p, err
	}
	u := newNodeUsers(t, withoutPull, "n1")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	u.gateway(ctx)
	// An entry the node left behind: its start must pull it.
	entry, err := json.Marshal(broker.DeviceEntry{V: broker.WireVersion, Serial: "p1", Node: "n1", State: broker.StateOnline})
	require.NoError(t, err)
	_, err = u.stores.Registry.Put(ctx, broker.RegistryKey("n1", "p1"), entry)
	require.NoError(t, err)
	began := time.Now()
	n, _, err := u.start(ctx, "n1")
	took := time.Since(began)
	require.Error(t, err, "the node started without pulling its registry entries")
	assert.Nil(t, n)
	assert.Less(t, took, 10*time.Second, "the start waited on the refusal")
	assert.ErrorContains(t, err, "NATS refused the node's user a request it needs to start")
	assert.ErrorContains(t, err, "CONSUMER.MSG.NEXT")
	assert.ErrorContains(t, err, "run corral nats-auth again")
}
