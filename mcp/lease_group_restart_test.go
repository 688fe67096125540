package mcp_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// After its node restarted, a group's member leases are gone. A device call with the group's
// handle was refused as "lease lease_beap… is unknown to node n1", naming a member's lease the
// caller never saw, and release_device said "its lease is no longer held (how it ended is not
// on record yet)": parentheses in parentheses, and a record promised. Both speak of the group
// now, and say what ended it: the restarted node revoked the leases its killed run held.
func TestGroupHandleAfterItsNodeRestartedSpeaksOfTheGroup(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 2})
	alice := f.Client("alice")
	grp := acquireGroup(t, alice, map[string]any{"count": 2, "platform": "android"})
	held := grp.Members[0]
	const killed = "node n1 was killed or crashed while the lease was held, and restarted"
	// A node records its grants just after it answers: a node killed before has no grant
	// on record to end, and the gateway can only guess. Kill it once they are stored.
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	events, err := js.Stream(t.Context(), broker.EventStream)
	require.NoError(t, err)
	for _, m := range grp.Members {
		farmtest.Eventually(t, 10*time.Second, func() bool {
			_, err := events.GetLastMsgForSubject(t.Context(), fmt.Sprintf(broker.EventLeaseT, "n1", broker.Token(m.Serial), "granted"))
			return err == nil
		}, m.Serial+"'s grant on record")
	}

	f.KillNode("n1")
	f.StartNode("n1", 2)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(held.Serial)
		return ok && d.State == broker.StateOnline && d.Epoch > held.Epoch
	}, held.Serial+" back online under the restarted node")

	text := wantRefused(t, farmtest.Call(t, alice, "tap_xy", map[string]any{"serial": held.Serial, "lease": grp.Handle, "x": 0.5, "y": 0.5}),
		"tap_xy on "+held.Serial+" refused (stale_lease): lease group "+grp.ID+" no longer holds "+held.Serial, killed, "acquire_device")
	assert.NotRegexp(t, `\blease_`, text, "the refusal names a member's lease the caller never saw")
	assert.NotContains(t, text, "is unknown to node")

	text = farmtest.Text(farmtest.MustCall(t, alice, "release_device", map[string]any{"lease": grp.Handle}))
	assert.Contains(t, text, "Already ended: ")
	assert.Contains(t, text, held.Serial+" (revoked: "+killed+")")
	assert.NotContains(t, text, "not on record yet")
	assert.False(t, nestedParentheses(text), "parentheses in parentheses: %s", text)
}

// nestedParentheses says whether s has a parenthesis inside another.
func nestedParentheses(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '(':
			if depth++; depth > 1 {
				return true
			}
		case ')':
			depth--
		}
	}
	return false
}
