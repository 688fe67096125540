package actors

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// releaseOf asks the scheduler to release d1's lease by handle, as a holder (never by force).
func (h *harness) releaseOf(handle string) broker.LeaseAnswer {
	h.t.Helper()
	p := make(chan broker.LeaseAnswer, 1)
	h.root.Send(h.sched, ReleaseLease{Req: broker.ReleaseRequest{V: broker.WireVersion, Serial: "d1", Handle: handle, By: "someone"},
		Reply: func(a broker.LeaseAnswer) { p <- a }})
	select {
	case a := <-p:
		return a
	case <-time.After(10 * time.Second):
		h.t.Fatal("no answer to release")
		return broker.LeaseAnswer{}
	}
}

// leasesNow lists the scheduler's leases.
func (h *harness) leasesNow() []broker.Lease {
	h.t.Helper()
	p := make(chan broker.LeasesAnswer, 1)
	h.root.Send(h.sched, ListLeases{Reply: func(a broker.LeasesAnswer) { p <- a }})
	select {
	case a := <-p:
		return a.Leases
	case <-time.After(10 * time.Second):
		h.t.Fatal("no answer to list leases")
		return nil
	}
}

// A release bearing anything but the current holder's handle — a forged one, the holder's
// handle from an earlier grant of the device, none at all — is refused as stale and changes
// nothing: the lease, its epoch and expiry stand, the holder's running and queued tasks run on
// under it, and the waiter in the queue is not granted. The holder's own release then hands
// the device to that waiter, and fences the released handle.
func TestReleaseByWrongHandleChangesNothing(t *testing.T) {
	h := newHarness(t, Config{})

	// An earlier grant of the same device, given back: its handle is the "old" one.
	old := (<-h.acquire("alice", 0)).Lease
	require.NotNil(t, old)
	require.True(t, h.releaseOf(old.Handle).OK, "alice's release of her first lease")

	cur := <-h.acquire("alice", 0)
	require.True(t, cur.OK, "alice's second lease: %+v", cur)
	l := cur.Lease
	require.Greater(t, l.Epoch, old.Epoch, "every grant moves the epoch on")
	require.NotEqual(t, old.Handle, l.Handle)

	running := h.submit(broker.TaskRequest{ID: "a-run", Tool: "block", Lease: l.Handle, Holder: broker.Holder{Principal: "alice"}})
	pollUntil(t, h.dev.isRunning, "alice's task never started")
	bob := h.acquire("bob", 60_000) // waits for alice's lease
	// The scheduler handles messages in order: once this answers, bob is queued.
	before := h.leasesNow()
	require.Len(t, before, 1)
	require.Equal(t, 1, before[0].QueueLen, "bob is queued")

	for _, c := range []struct{ name, handle, says string }{
		{"forged", broker.NewLeaseHandle(), "not the current lease"},
		{"old handle of an earlier grant", old.Handle, "was released by its holder at"},
		{"no handle", "", "only the holder of the current lease of d1"},
		{"the handle's prefix", l.Handle[:len(l.Handle)-1], "not the current lease"},
	} {
		ans := h.releaseOf(c.handle)
		require.False(t, ans.OK, "%s: a release with a handle that is not the lease's released it: %+v", c.name, ans)
		assert.Equal(t, broker.CodeStaleLease, ans.Code, c.name)
		assert.Contains(t, ans.Error, c.says, c.name)
		assert.Contains(t, ans.Error, "d1 is held by alice until", c.name)
		if assert.NotNil(t, ans.Lease, "%s: the refusal names the holder", c.name) {
			assert.Equal(t, "alice", ans.Lease.Holder.Principal, c.name)
			assert.Empty(t, ans.Lease.Handle, "%s: the refusal leaks the holder's handle", c.name)
		}

		// Nothing changed. The release was answered after anything it set off, so a grant to
		// bob would be in his channel already.
		select {
		case a := <-bob:
			t.Fatalf("%s: bob was granted the device while alice holds it: %+v", c.name, a)
		case r := <-running:
			t.Fatalf("%s: alice's running task ended: %+v", c.name, r)
		default:
		}
		assert.True(t, h.dev.isRunning(), "%s: alice's task still runs", c.name)
		after := h.leasesNow()
		require.Len(t, after, 1, c.name)
		assert.Equal(t, "alice", after[0].Holder.Principal, c.name)
		assert.Equal(t, l.Epoch, after[0].Epoch, "%s: the epoch moved", c.name)
		assert.Equal(t, 1, after[0].QueueLen, "%s: bob is no longer queued", c.name)
		assert.False(t, after[0].ExpiresAt.Before(before[0].ExpiresAt), "%s: the expiry moved back", c.name)
	}

	// Alice's calls still run under her lease: the running one, and one queued behind it.
	queued := h.submit(broker.TaskRequest{ID: "a-next", Tool: "noop", Lease: l.Handle, Holder: broker.Holder{Principal: "alice"}})
	h.dev.release <- struct{}{}
	r := running.wait()
	expect(t, r, broker.OutcomeSucceeded, "")
	assert.Equal(t, l.Epoch, r.LeaseEpoch)
	r = queued.wait()
	expect(t, r, broker.OutcomeSucceeded, "")
	assert.Equal(t, l.Epoch, r.LeaseEpoch)
	select {
	case a := <-bob:
		t.Fatalf("bob was granted the device while alice holds it: %+v", a)
	default:
	}

	// Her own release works and grants the head of the queue at once.
	ans := h.releaseOf(l.Handle)
	require.True(t, ans.OK, "alice's own release: %+v", ans)
	assert.Equal(t, "alice", ans.Lease.Holder.Principal)
	assert.Empty(t, ans.Lease.Handle)
	var b broker.LeaseAnswer
	select {
	case b = <-bob:
	case <-time.After(10 * time.Second):
		t.Fatal("bob was not granted the device after alice released it")
	}
	require.True(t, b.OK, "bob's grant: %+v", b)
	assert.Equal(t, "bob", b.Lease.Holder.Principal)
	assert.Equal(t, l.Epoch+1, b.Lease.Epoch)

	// Alice's handles are fenced now: her calls and her release are refused, bob's lease stands.
	expect(t, h.submit(broker.TaskRequest{ID: "a-late", Tool: "noop", Lease: l.Handle}).wait(), broker.OutcomeRefused, broker.CodeStaleLease)
	again := h.releaseOf(l.Handle)
	require.False(t, again.OK, "a second release of alice's lease released bob's: %+v", again)
	assert.Equal(t, broker.CodeStaleLease, again.Code)
	r = h.submit(broker.TaskRequest{ID: "b-1", Tool: "noop", Lease: b.Lease.Handle}).wait()
	expect(t, r, broker.OutcomeSucceeded, "")
	assert.Equal(t, b.Lease.Epoch, r.LeaseEpoch)
}

// Releasing a device that nobody holds is refused as stale, and leaves it free.
func TestReleaseWithoutLeaseIsStale(t *testing.T) {
	h := newHarness(t, Config{})
	ans := h.releaseOf(broker.NewLeaseHandle())
	require.False(t, ans.OK)
	assert.Equal(t, broker.CodeStaleLease, ans.Code)
	assert.Empty(t, h.leasesNow())
	a := <-h.acquire("carol", 0)
	require.True(t, a.OK, "the device is free: %+v", a)
}

// Each task of the holder pushes the lease's expiry to now + the idle TTL the holder asked for
// (actors/README.md rule 4), however many tasks ran before: the TTL does not grow with the lease's
// age. No waiting: ten renewals in a row make an age that a growing TTL would add to the last.
func TestRenewKeepsTheAskedIdleTTL(t *testing.T) {
	h := newHarness(t, Config{})
	const ttl = time.Minute // below the node's LeaseTTL (300 s)
	p := make(chan broker.LeaseAnswer, 1)
	h.root.Send(h.sched, AcquireLease{Req: broker.AcquireRequest{Serial: "d1", Holder: broker.Holder{Principal: "alice"}, TTLMS: ttl.Milliseconds()},
		Reply: func(a broker.LeaseAnswer) { p <- a }})
	a := <-p
	require.True(t, a.OK, "%+v", a)
	require.Equal(t, ttl, a.Lease.ExpiresAt.Sub(a.Lease.AcquiredAt))
	for i := range 10 {
		before := time.Now()
		expect(t, h.submit(broker.TaskRequest{ID: fmt.Sprint("r", i), Tool: "noop", Lease: a.Lease.Handle}).wait(), broker.OutcomeSucceeded, "")
		after := time.Now()
		ls := h.leasesNow()
		require.Len(t, ls, 1)
		exp := ls[0].ExpiresAt
		require.False(t, exp.Before(before.Add(ttl)), "renewal %d: expiry %s before the task plus the TTL", i+1, exp.Sub(before))
		require.False(t, exp.After(after.Add(ttl)), "renewal %d: expiry %s after the answer, more than the asked TTL of %s",
			i+1, exp.Sub(after), ttl)
	}
}
