package nodes_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
	holder := broker.Holder{Principal: "alice", Client: "ci"}
	first, old := r.leased(node, serial, holder)
	first.Stop()
	r.lastEvent(node, serial, broker.LeaseRevoked, func(e broker.Event) bool { return e.Epoch == old.Epoch && e.Reason == stopped })

	r.start(node, serial)
	r.waitOnline(serial)
	r.taskSaidRevoked(serial, holder, old, stopped)
	r.releaseSaidRevoked(serial, old, stopped)
	assert.Equal(t, 1, r.count(node, serial, broker.LeaseRevoked), "the stop's revocation was recorded again at the restart")
}
