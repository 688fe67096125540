package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// acquireAs asks for d1's lease under a request id, as a gateway does.
func (h *harness) acquireAs(id, holder string, waitMS int64) chan broker.LeaseAnswer {
	p := make(chan broker.LeaseAnswer, 1)
	h.root.Send(h.sched, AcquireLease{Req: broker.AcquireRequest{Serial: "d1", ID: id, Holder: broker.Holder{Principal: holder}, WaitMS: waitMS},
		Reply: func(a broker.LeaseAnswer) { p <- a }})
	return p
}

// withdrawOf withdraws the lease request id of d1, as a gateway whose caller went away does.
func (h *harness) withdrawOf(id string) broker.LeaseAnswer {
	h.t.Helper()
	p := make(chan broker.LeaseAnswer, 1)
	h.root.Send(h.sched, ReleaseLease{Req: broker.ReleaseRequest{V: broker.WireVersion, Serial: "d1", Request: id, By: "bob"},
		Reply: func(a broker.LeaseAnswer) { p <- a }})
	select {
	case a := <-p:
		return a
	case <-time.After(10 * time.Second):
		h.t.Fatal("no answer to the withdrawal")
		return broker.LeaseAnswer{}
	}
}

// A queued lease request withdrawn by its id leaves the queue: when the holder releases, the
// device is free, not granted to the caller who went away.
func TestWithdrawnWaiterLeavesTheQueue(t *testing.T) {
	h := newHarness(t, Config{})
	alice := <-h.acquire("alice", 0)
	require.True(t, alice.OK)
	bob := h.acquireAs("acq_bob", "bob", 60_000)
	require.Equal(t, 1, h.leasesNow()[0].QueueLen, "bob waits")

	require.True(t, h.withdrawOf("acq_bob").OK)
	a := <-bob
	assert.False(t, a.OK, "the withdrawn request was granted: %+v", a)
	assert.Equal(t, 0, h.leasesNow()[0].QueueLen, "bob still waits")

	require.True(t, h.releaseOf(alice.Lease.Handle).OK)
	assert.Empty(t, h.leasesNow(), "the device went to a caller who had gone")
	carol := <-h.acquire("carol", 0)
	assert.True(t, carol.OK, "the device is free: %+v", carol)
}

// The race: the lease is granted just as its caller goes away, the answer on its way to no
// one. The withdrawal that follows releases it, and says why in the lease's event.
func TestWithdrawalReleasesALeaseGrantedAsTheCallerLeft(t *testing.T) {
	h := newHarness(t, Config{})
	alice := <-h.acquire("alice", 0)
	bob := h.acquireAs("acq_bob", "bob", 60_000)
	require.True(t, h.releaseOf(alice.Lease.Handle).OK)
	granted := <-bob // the grant, which bob's gateway no longer reads
	require.True(t, granted.OK)
	require.Equal(t, "bob", h.leasesNow()[0].Holder.Principal)

	ans := h.withdrawOf("acq_bob")
	require.True(t, ans.OK, "%+v", ans)
	assert.Empty(t, h.leasesNow(), "the lease granted as bob left is still held")
	var last broker.Event
	h.rec.mu.Lock()
	for _, ev := range h.rec.events {
		if ev.Kind == "lease" {
			last = ev
		}
	}
	h.rec.mu.Unlock()
	assert.Equal(t, "released", last.What)
	assert.Equal(t, reasonCallerGone, last.Reason)
	res := h.submit(broker.TaskRequest{ID: "late", Tool: "noop", Lease: granted.Lease.Handle}).wait()
	expect(t, res, broker.OutcomeRefused, broker.CodeStaleLease)
	assert.Contains(t, res.Error, "was released at")
	assert.Contains(t, res.Error, reasonCallerGone)

	// A withdrawal of a request that was answered long ago, or is not this device's, releases
	// no one else's lease.
	carol := <-h.acquire("carol", 0)
	require.True(t, carol.OK)
	require.True(t, h.withdrawOf("acq_bob").OK)
	require.Len(t, h.leasesNow(), 1)
	assert.Equal(t, "carol", h.leasesNow()[0].Holder.Principal)
}

// A withdrawal may reach the node before its request (another endpoint): the request, when
// it comes, is refused and leaves nothing held.
func TestWithdrawalBeforeItsRequest(t *testing.T) {
	h := newHarness(t, Config{})
	require.True(t, h.withdrawOf("acq_early").OK)
	a := <-h.acquireAs("acq_early", "bob", 0)
	assert.False(t, a.OK, "a withdrawn request was granted: %+v", a)
	assert.Equal(t, broker.CodeWaitExpired, a.Code)
	assert.Empty(t, h.leasesNow())
	// Once: the same id again is a new request (ids are random; this is only the bookkeeping).
	assert.True(t, (<-h.acquireAs("acq_early", "bob", 0)).OK)
}
