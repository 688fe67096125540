package nodes_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// A halt that moves through several node ids says where it was halted once: its rig's driver
// keeps the reason it was told, "(halted under node n1)" included, under each new id (read
// "… (halted under node n1) (halted under node n2)" under n3). Back under n1, it says none.
// Who stopped it and when stay readable all the way.
func TestHaltMovedThroughNodeIDsSaysWhereOnce(t *testing.T) {
	ctx := t.Context()
	u := newNodeUsers(t, broker.PermissionsFor, "n1", "n2", "n3")
	u.gateway(ctx)
	stop := device.Stop{By: "alice (ci)", At: time.Date(2026, 12, 5, 16, 22, 18, 0, time.UTC)}
	n1, _, err := u.start(ctx, "n1")
	require.NoError(t, err)
	require.NoError(t, n1.SaveHalt(ctx, "r1", stop.Reason()))
	n1.Stop()

	want := stop.Reason() + " (halted under node n1)"
	for _, id := range []string{"n2", "n3"} {
		n, _, err := u.start(ctx, id)
		require.NoError(t, err)
		why, err := n.LoadHalt(ctx, "r1")
		require.NoError(t, err)
		assert.Equal(t, want, why, "under %s", id)
		require.NoError(t, n.SaveHalt(ctx, "r1", why)) // as the rig's driver keeps what it was told
		n.Stop()
	}
	got, ok := device.ParseStop(want)
	assert.True(t, ok)
	assert.Equal(t, stop, got)

	n1, _, err = u.start(ctx, "n1")
	require.NoError(t, err)
	why, err := n1.LoadHalt(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, stop.Reason(), why, "back under the node it was halted under")
}

// An emergency_stop an older node kept says neither who nor when: it still reads as one, by
// "unknown" at an "unknown time", and a halt of another kind reads as it was kept.
func TestOlderNodesStopReadsAsUnknown(t *testing.T) {
	ctx := t.Context()
	u := newNodeUsers(t, broker.PermissionsFor, "n1")
	u.gateway(ctx)
	n1, _, err := u.start(ctx, "n1")
	require.NoError(t, err)
	require.NoError(t, n1.SaveHalt(ctx, "r1", device.HaltReasonStop))
	why, err := n1.LoadHalt(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, "halted by emergency_stop from unknown at unknown time: when a person has looked at it, resume with arm_recover", why)
	got, ok := device.ParseStop(why)
	assert.True(t, ok)
	assert.Equal(t, device.Stop{}, got)

	require.NoError(t, n1.SaveHalt(ctx, "r1", "controller alarm"))
	why, err = n1.LoadHalt(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, "controller alarm", why)
}
