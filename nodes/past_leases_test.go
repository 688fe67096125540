package nodes_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes"
)

// QA: after kill -9 and a restart, the holder of a plain lease (or of a selection's, which the
// gateway words from the same fields) was refused with "the lease you passed is unknown to node
// n1 (…, or from before the node restarted)", though the node had recorded the lease revoked
// because it was killed. A task and a release with that lease now hear what became of it: as
// words, and as the fields a gateway words a selection's lease from.
func TestLeaseHeldAtACrashIsSaidRevokedToItsHolder(t *testing.T) {
	for _, reap := range []bool{false, true} {
		t.Run(map[bool]string{false: "crash", true: "crash declared lost"}[reap], func(t *testing.T) {
			const node, serial = "n1", "n1-p1"
			const killed = "node n1 was killed or crashed while the lease was held, and restarted"
			holder := broker.Holder{Principal: "alice", Client: "ci"}
			r := newAuthRig(t, reap)
			first, old := r.leased(node, serial, holder)
			r.lastEvent(node, serial, "granted", func(e broker.Event) bool { return e.Epoch == old.Epoch }) // on record before the kill
			first.Kill()
			if reap {
				farmtest.Eventually(t, 15*time.Second, func() bool {
					d, ok := r.gw.Device(serial)
					return ok && d.State == broker.StateOffline
				}, "%s declared lost", serial)
			}
			r.start(node, serial)
			r.lastEvent(node, serial, broker.LeaseRevoked, func(e broker.Event) bool { return e.Epoch == old.Epoch })
			r.waitOnline(serial)

			task := func() { r.taskSaidRevoked(serial, holder, old, killed) }
			release := func() { r.releaseSaidRevoked(serial, old, killed) }
			// The device takes what the node kept when a refusal first needs it: a task's in one
			// run, a release's in the other.
			if reap {
				release()
				task()
			} else {
				task()
				release()
			}
		})
	}
}

// leased starts node with device serial and leases it to holder: the node and the lease.
func (r *authRig) leased(node, serial string, holder broker.Holder) (*nodes.Node, *broker.Lease) {
	r.t.Helper()
	n := r.start(node, serial)
	r.waitOnline(serial)
	ans, err := r.gw.Acquire(r.ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: holder})
	require.NoError(r.t, err)
	require.True(r.t, ans.OK, "%+v", ans)
	return n, ans.Lease
}

// taskSaidRevoked checks that a task with the old lease hears it was revoked, and why.
func (r *authRig) taskSaidRevoked(serial string, holder broker.Holder, old *broker.Lease, reason string) {
	r.t.Helper()
	res, err := r.gw.Run(r.ctx, broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: serial,
		Tool: "get_screen_size", Lease: old.Handle, Holder: holder}, nil)
	require.NoError(r.t, err)
	assert.Equal(r.t, broker.CodeStaleLease, res.Code, "%+v", res)
	assert.Contains(r.t, res.Error, "the lease you passed for "+serial+" was revoked at ")
	assert.Contains(r.t, res.Error, "("+reason+")")
	assert.NotContains(r.t, res.Error, "unknown to node")
	assert.NotContains(r.t, res.Error, old.Handle)
	require.NotNil(r.t, res.LeaseEnded, "%+v", res)
	assert.Equal(r.t, broker.LeaseRevoked, res.LeaseEnded.What)
	assert.Equal(r.t, reason, res.LeaseEnded.Reason)
}

// releaseSaidRevoked checks that a release with the old lease hears it was revoked, and why.
func (r *authRig) releaseSaidRevoked(serial string, old *broker.Lease, reason string) {
	r.t.Helper()
	rel, err := r.gw.Release(r.ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Handle: old.Handle})
	require.NoError(r.t, err)
	assert.False(r.t, rel.OK)
	assert.Equal(r.t, broker.CodeStaleLease, rel.Code, "%+v", rel)
	assert.Contains(r.t, rel.Error, "was revoked at ")
	assert.Contains(r.t, rel.Error, reason)
	require.NotNil(r.t, rel.LeaseEnded, "%+v", rel)
	assert.Equal(r.t, broker.LeaseRevoked, rel.LeaseEnded.What)
	assert.Equal(r.t, reason, rel.LeaseEnded.Reason)
}
