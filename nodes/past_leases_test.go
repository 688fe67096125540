package nodes_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
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
			r := newAuthRig(t, reap)
			first := r.start(node, serial)
			r.waitOnline(serial)
			holder := broker.Holder{Principal: "alice", Client: "ci"}
			ans, err := r.gw.Acquire(r.ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: holder})
			require.NoError(t, err)
			require.True(t, ans.OK, "%+v", ans)
			old := ans.Lease
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

			task := func() {
				res, err := r.gw.Run(r.ctx, broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: serial,
					Tool: "get_screen_size", Lease: old.Handle, Holder: holder}, nil)
				require.NoError(t, err)
				assert.Equal(t, broker.CodeStaleLease, res.Code, "%+v", res)
				assert.Contains(t, res.Error, "the lease you passed for "+serial+" was revoked at ")
				assert.Contains(t, res.Error, "("+killed+")")
				assert.NotContains(t, res.Error, "unknown to node")
				assert.NotContains(t, res.Error, old.Handle)
				require.NotNil(t, res.LeaseEnded, "%+v", res)
				assert.Equal(t, broker.LeaseRevoked, res.LeaseEnded.What)
				assert.Equal(t, killed, res.LeaseEnded.Reason)
			}
			release := func() {
				rel, err := r.gw.Release(r.ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Handle: old.Handle})
				require.NoError(t, err)
				assert.False(t, rel.OK)
				assert.Equal(t, broker.CodeStaleLease, rel.Code, "%+v", rel)
				assert.Contains(t, rel.Error, "was revoked at ")
				assert.Contains(t, rel.Error, killed)
				require.NotNil(t, rel.LeaseEnded, "%+v", rel)
				assert.Equal(t, broker.LeaseRevoked, rel.LeaseEnded.What)
				assert.Equal(t, killed, rel.LeaseEnded.Reason)
			}
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
