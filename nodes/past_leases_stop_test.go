package nodes_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// QA: after a clean stop (kill -INT) of a node and its restart, the holder of a lease (a
// session's selection, which the gateway words from the same fields) was refused with "the
// lease you passed is unknown to node n1 (…, or from before the node restarted)", though the
// stop had recorded it revoked, "node n1 is shutting down"; after kill -9 the refusal named the
// revocation. The restarted node reads the lease's end as it reads an unended grant, and a task
// and a release with it now hear that it was revoked, and why.
func TestLeaseRevokedAtACleanStopIsSaidRevokedToItsHolder(t *testing.T) {
	const node, serial = "n1", "n1-p1"
	const stopped = "node n1 is shutting down"
	r := newAuthRig(t, false)
	first := r.start(node, serial)
	r.waitOnline(serial)
	holder := broker.Holder{Principal: "alice", Client: "ci"}
	ans, err := r.gw.Acquire(r.ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: holder})
	require.NoError(t, err)
	require.True(t, ans.OK, "%+v", ans)
	old := ans.Lease
	first.Stop()
	r.lastEvent(node, serial, broker.LeaseRevoked, func(e broker.Event) bool { return e.Epoch == old.Epoch && e.Reason == stopped })

	r.start(node, serial)
	r.waitOnline(serial)
	res, err := r.gw.Run(r.ctx, broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: serial,
		Tool: "get_screen_size", Lease: old.Handle, Holder: holder}, nil)
	require.NoError(t, err)
	t.Log(res.Error)
	assert.Equal(t, broker.CodeStaleLease, res.Code, "%+v", res)
	assert.Contains(t, res.Error, "the lease you passed for "+serial+" was revoked at ")
	assert.Contains(t, res.Error, "("+stopped+")")
	assert.NotContains(t, res.Error, "unknown to node")
	assert.NotContains(t, res.Error, old.Handle)
	require.NotNil(t, res.LeaseEnded, "%+v", res)
	assert.Equal(t, broker.LeaseRevoked, res.LeaseEnded.What)
	assert.Equal(t, stopped, res.LeaseEnded.Reason)

	rel, err := r.gw.Release(r.ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Handle: old.Handle})
	require.NoError(t, err)
	assert.False(t, rel.OK)
	assert.Equal(t, broker.CodeStaleLease, rel.Code, "%+v", rel)
	assert.Contains(t, rel.Error, "was revoked at ")
	assert.Contains(t, rel.Error, stopped)
	assert.Equal(t, 1, r.count(node, serial, broker.LeaseRevoked), "the stop's revocation was recorded again at the restart")
}
