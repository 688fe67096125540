package actors

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
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
	for _, want := range []string{"the lease you passed for d1 was released by its holder at 20", "d1 is held by bob until 20", "at most until", "acquire_device"} {
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

// A stale_lease refusal quotes no part of the handle it was sent, not even its first
// characters: a handle is a secret, and refusals reach task records and logs. It says what
// became of the caller's lease and who has the device now instead.
func TestStaleRefusalsQuoteNoPartOfTheHandle(t *testing.T) {
	h := newHarness(t, Config{})
	a := <-h.acquire("alice", 0)
	require.True(t, a.OK, "%+v", a)
	ended := a.Lease.Handle
	require.True(t, h.releaseOf(ended).OK)
	never := broker.NewLeaseHandle()
	task := func(handle string) string {
		r := h.submit(broker.TaskRequest{ID: "stale", Tool: "noop", Lease: handle}).wait()
		expect(t, r, broker.OutcomeRefused, broker.CodeStaleLease)
		return r.Error
	}
	release := func(handle string) string {
		ans := h.releaseOf(handle)
		require.Equal(t, broker.CodeStaleLease, ans.Code, "%+v", ans)
		return ans.Error
	}
	check := func(what, handle, text string, says ...string) {
		t.Helper()
		// Any 6 characters in a row of the handle, its "lease_" prefix included.
		for i := 0; i+6 <= len(handle); i++ {
			if part := handle[i : i+6]; strings.Contains(text, part) {
				t.Errorf("%s: the refusal quotes %q of the handle it was sent: %s", what, part, text)
			}
		}
		for _, s := range says {
			assert.Contains(t, text, s, what)
		}
	}
	check("a task with an ended lease", ended, task(ended), "the lease you passed for d1 was released by its holder at 20", "d1 is free now", "Call acquire_device again")
	check("a task with a lease never granted", never, task(never), "the lease you passed is unknown to node n for device d1", "list_leases shows yours")
	check("releasing an ended lease", ended, release(ended), "nothing to release")
	check("releasing a lease never granted", never, release(never), "d1 has no lease to release: the lease you passed is unknown")

	b := <-h.acquire("bob", 0)
	require.True(t, b.OK, "%+v", b)
	check("a task with an ended lease, the device held", ended, task(ended), "d1 is held by bob until 20")
	check("releasing another's lease with a lease never granted", never, release(never), "so it is not the current lease", "d1 is held by bob until 20")
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

// A stale_lease refusal carries what its words say as fields (broker.LeaseEnded), so that a
// gateway words it for the lease its caller knows without parsing the node's English: what
// became of the lease, when and why, and who has the device now; for a handle never granted,
// that the node knows it not. Neither quotes any part of the handle.
func TestStaleRefusalCarriesWhatBecameOfTheLease(t *testing.T) {
	h := newHarness(t, Config{})
	a := <-h.acquire("alice", 0)
	require.True(t, a.OK, "%+v", a)
	released := a.Lease.Handle
	before := time.Now().Add(-time.Second)
	require.True(t, h.releaseOf(released).OK)
	b := <-h.acquire("bob", 0)
	require.True(t, b.OK, "%+v", b)
	refused := func(handle string) broker.TaskResult {
		t.Helper()
		r := h.submit(broker.TaskRequest{ID: "stale", Tool: "noop", Lease: handle}).wait()
		expect(t, r, broker.OutcomeRefused, broker.CodeStaleLease)
		require.NotNil(t, r.LeaseEnded, "a stale_lease refusal without fields: %s", r.Error)
		for _, handle := range []string{released, b.Lease.Handle} {
			assert.NotContains(t, r.LeaseEnded.Reason+r.LeaseEnded.Now, handle[len(handle)-8:])
		}
		return r
	}

	r := refused(released)
	e := *r.LeaseEnded
	assert.Equal(t, broker.LeaseReleased, e.What)
	assert.Equal(t, reasonReleased, e.Reason)
	assert.True(t, e.At.After(before) && !e.At.After(time.Now()), "ended at %s", e.At)
	assert.Equal(t, time.UTC, e.At.Location())
	assert.Contains(t, e.Now, "d1 is held by bob until 20")
	assert.Contains(t, r.Error, e.Now, "the node's words and its fields differ")
	assert.Contains(t, r.Error, "the lease you passed for d1 was released by its holder at "+stamp(e.At))

	r = refused(broker.NewLeaseHandle())
	assert.Equal(t, broker.LeaseEnded{What: broker.LeaseUnknown, Now: r.LeaseEnded.Now}, *r.LeaseEnded)
	assert.Contains(t, r.LeaseEnded.Now, "d1 is held by bob until 20")
	assert.Contains(t, r.Error, "the lease you passed is unknown to node n for device d1")
}

// A task that waited behind its holder's running task while the lease ended is refused with
// what became of the lease as fields too, not only in the node's words ("your lease of d1 was
// … while this task waited"): a gateway words them for a group's or a selection's lease.
func TestRefusalOfATaskWhoseLeaseEndedWhileItWaitedCarriesFields(t *testing.T) {
	dev := newRig(t, "d1")
	f := newFarm(t, Config{}, dev)
	f.waitState("d1", broker.StateOnline)
	l := f.lease("d1", broker.Holder{Principal: "alice"})
	running := f.submit(broker.TaskRequest{ID: "a-run", Serial: "d1", Tool: "block", Lease: l.Handle})
	pollUntil(t, dev.isRunning, "alice's task never started")
	queued := f.submit(broker.TaskRequest{ID: "a-next", Serial: "d1", Tool: "noop", Lease: l.Handle})
	require.Equal(t, 1, f.leases()[0].QueueLen)
	before := time.Now().Add(-time.Second)

	require.True(t, f.release("d1", l.Handle).OK)
	r := queued.wait()
	expect(t, r, broker.OutcomeRefused, broker.CodeStaleLease)
	assert.Contains(t, r.Error, "while this task waited")
	require.NotNil(t, r.LeaseEnded, "a stale_lease refusal without fields: %s", r.Error)
	e := *r.LeaseEnded
	assert.Equal(t, broker.LeaseReleased, e.What)
	assert.Equal(t, reasonReleased, e.Reason)
	assert.True(t, e.At.After(before) && !e.At.After(time.Now()), "ended at %s", e.At)
	assert.Contains(t, e.Now, "d1 runs block for")
	assert.NotContains(t, e.Reason+e.Now, l.Handle[len(l.Handle)-8:])

	dev.finish(t)
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
}

// A task still queued under a lease once the device has none (dispatch's guard: endLease
// refuses them as the lease ends) is refused with the fields too.
func TestDispatchRefusesATaskOfAnEndedLeaseWithFields(t *testing.T) {
	metrics := NewMetrics(prometheus.NewRegistry())
	s := &Scheduler{cfg: Config{Node: "n", Mirror: &recorder{}, Metrics: metrics}, slots: map[string]*slot{}, waiting: map[string]int{}}
	sl := &slot{info: broker.DeviceEntry{Serial: "d1"}, health: broker.StateOnline, series: metrics.device("n", "d1")}
	s.slots["d1"] = sl
	handle := broker.NewLeaseHandle()
	ended := time.Now().Add(-time.Minute)
	sl.remember(&broker.Lease{Serial: "d1", Handle: handle}, "expired", "idle for the lease's TTL", ended)
	got := make(chan broker.TaskResult, 1)
	tk := &task{req: broker.TaskRequest{ID: "late", Serial: "d1", Tool: "noop", Lease: handle}, reply: func(r broker.TaskResult) { got <- r }}
	s.enqueue(sl, &waiter{task: tk}, time.Hour)

	s.dispatch(sl)
	r := <-got
	expect(t, r, broker.OutcomeRefused, broker.CodeStaleLease)
	require.NotNil(t, r.LeaseEnded, "a stale_lease refusal without fields: %s", r.Error)
	assert.Equal(t, broker.LeaseEnded{What: "expired", Reason: "idle for the lease's TTL", At: ended.UTC(), Now: "d1 is free now"}, *r.LeaseEnded)
}

// A release of a handle that is not the device's lease is refused with what became of its
// lease as fields too, as a task's is: a gateway words them for the selection that took it.
// A release without a handle names no lease, and carries none.
func TestStaleReleaseCarriesWhatBecameOfTheLease(t *testing.T) {
	h := newHarness(t, Config{})
	a := <-h.acquire("alice", 0)
	require.True(t, a.OK, "%+v", a)
	require.True(t, h.releaseOf(a.Lease.Handle).OK)

	ans := h.releaseOf(a.Lease.Handle)
	require.Equal(t, broker.CodeStaleLease, ans.Code, "%+v", ans)
	require.NotNil(t, ans.LeaseEnded, "a stale_lease refusal without fields: %s", ans.Error)
	assert.Equal(t, broker.LeaseReleased, ans.LeaseEnded.What)
	assert.Equal(t, reasonReleased, ans.LeaseEnded.Reason)
	assert.Equal(t, "d1 is free now", ans.LeaseEnded.Now)
	assert.Contains(t, ans.Error, "the lease you passed for d1 was released by its holder at "+stamp(ans.LeaseEnded.At))

	ans = h.releaseOf(broker.NewLeaseHandle())
	require.NotNil(t, ans.LeaseEnded, "%+v", ans)
	assert.Equal(t, broker.LeaseEnded{What: broker.LeaseUnknown, Now: "d1 is free now"}, *ans.LeaseEnded)

	ans = h.releaseOf("")
	assert.Equal(t, broker.CodeStaleLease, ans.Code, "%+v", ans)
	assert.Nil(t, ans.LeaseEnded)
}
