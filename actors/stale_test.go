package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A handle that no longer works is told what became of its lease (expired, released or
// revoked, when and why) and who holds the device now, never a handle; one the node never
// granted for the device is not told it expired (actors/README.md rule 9).
func TestStaleLeaseSaysWhatBecameOfIt(t *testing.T) {
	h := newHarness(t, Config{})
	take := func(who string) *broker.Lease {
		a := <-h.acquire(who, 0)
		require.True(t, a.OK, "%s: %+v", who, a)
		return a.Lease
	}
	staleTask := func(handle string) string {
		r := h.submit(broker.TaskRequest{ID: "stale", Tool: "noop", Lease: handle}).wait()
		expect(t, r, broker.OutcomeRefused, broker.CodeStaleLease)
		return r.Error
	}

	released := take("alice")
	require.True(t, h.releaseOf(released.Handle).OK)
	bob := take("bob")
	text := staleTask(released.Handle)
	for _, want := range []string{"lease " + released.Handle[:10] + "… of d1 was released by its holder at 20", "d1 is held by bob until 20", "at most until", "acquire_device"} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, bob.Handle)
	ans := h.releaseOf(released.Handle)
	assert.Equal(t, broker.CodeStaleLease, ans.Code)
	assert.Contains(t, ans.Error, "was released by its holder at")
	assert.Contains(t, ans.Error, "nothing to release")

	p := make(chan broker.LeaseAnswer, 1)
	h.root.Send(h.sched, ReleaseLease{Req: broker.ReleaseRequest{Serial: "d1", Force: true, By: "op (ops)"}, Reply: func(a broker.LeaseAnswer) { p <- a }})
	require.True(t, (<-p).OK)
	text = staleTask(bob.Handle)
	assert.Contains(t, text, "was revoked at 20")
	assert.Contains(t, text, "(forced release by op (ops))")
	assert.Contains(t, text, "d1 is free now")

	text = staleTask(broker.NewLeaseHandle())
	assert.Contains(t, text, "is unknown to node n for device d1")
	assert.Contains(t, text, "d1 is free now")
	for _, wrong := range []string{"expired", "released", "revoked"} {
		assert.NotContains(t, text, wrong, "a handle never granted is told what became of a lease")
	}
}

// A lease that ran out of idle time says so, with when.
func TestStaleLeaseSaysItExpired(t *testing.T) {
	h := newHarness(t, Config{LeaseTTL: 50 * time.Millisecond})
	a := <-h.acquire("alice", 0)
	require.True(t, a.OK)
	pollUntil(t, func() bool { return len(h.leasesNow()) == 0 }, "the lease never expired")
	r := h.submit(broker.TaskRequest{ID: "late", Tool: "noop", Lease: a.Lease.Handle}).wait()
	expect(t, r, broker.OutcomeRefused, broker.CodeStaleLease)
	assert.Contains(t, r.Error, "expired at 20")
	assert.Contains(t, r.Error, "(idle for the lease's TTL)")
	assert.Contains(t, r.Error, "d1 is free now")
}

// A full queue's refusal names who holds the device and until when, as busy does.
func TestQueueFullNamesTheHolder(t *testing.T) {
	h := newHarness(t, Config{MaxQueue: 1})
	a := <-h.acquire("alice", 0)
	require.True(t, a.OK)
	bob := h.acquire("bob", 60_000)
	full := <-h.acquire("carol", 60_000)
	require.Equal(t, broker.CodeQueueFull, full.Code, "%+v", full)
	assert.Contains(t, full.Error, "device d1 has 1 tasks and lease requests waiting")
	assert.Contains(t, full.Error, "d1 is held by alice until 20")
	assert.Contains(t, full.Error, "Retry later or use another device")
	r := h.submit(broker.TaskRequest{ID: "t", Tool: "noop", WaitMS: 60_000, Holder: broker.Holder{Principal: "dave"}}).wait()
	expect(t, r, broker.OutcomeRefused, broker.CodeQueueFull)
	assert.Contains(t, r.Error, "d1 is held by alice until 20")
	assert.NotContains(t, r.Error, a.Lease.Handle)
	require.True(t, h.releaseOf(a.Lease.Handle).OK)
	assert.True(t, (<-bob).OK)
}
