package actors

import (
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// shownQueue is d1's queue as its registry entry last showed it.
func (h *harness) shownQueue() ([]string, int) {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	d := h.rec.devices["d1"]
	return slices.Clone(d.Queue), d.Queued
}

// queueShows waits until d1's entry shows want waiting, in that order.
func (h *harness) queueShows(want ...string) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		q, n := h.shownQueue()
		if slices.Equal(q, want) && n == len(want) {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the entry shows %q (%d waiting), want %q", q, n, want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// The entry lists the waiters in the order the device then serves them: with principals of
// different weights taking turns (alice's weight 2 takes two turns to bob's and carol's one),
// not in the order they came.
func TestQueueShownInTheOrderItIsServed(t *testing.T) {
	h := newHarness(t, Config{})
	running := h.submit(broker.TaskRequest{ID: "x", Tool: "block", Holder: broker.Holder{Principal: "xavier"}})
	pollUntil(t, h.dev.isRunning, "task x never started")

	var mu sync.Mutex
	var served []string
	came := []struct{ id, who string }{{"a1", "alice"}, {"b1", "bob"}, {"a2", "alice"}, {"a3", "alice"}, {"c1", "carol"}, {"a4", "alice"}, {"b2", "bob"}}
	for _, c := range came {
		share := broker.Share{Weight: 1}
		if c.who == "alice" {
			share.Weight = 2
		}
		h.root.Send(h.sched, SubmitTask{Req: broker.TaskRequest{ID: c.id, Serial: "d1", Tool: "noop", WaitMS: 30_000,
			Holder: broker.Holder{Principal: c.who}, Share: share}, Reply: func(r broker.TaskResult) {
			mu.Lock()
			served = append(served, r.ID)
			mu.Unlock()
		}})
	}
	// Turns (turns.go): each starts at its principal's next turn, the earliest in the queue on
	// a tie. a1, b1 and c1 start at 0; alice's next is 0.5, before bob's and carol's 1.
	want := []string{"a1", "b1", "c1", "a2", "a3", "b2", "a4"}
	h.queueShows(want...)

	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	pollUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(served) == len(want) }, "the waiters were not all served")
	assert.Equal(t, want, served, "the order the device served them in")
	h.queueShows() // none left: the entry says so
}

// Under a lease, the holder's own tasks come first, in their order; the others after the lease.
func TestQueueShowsTheHoldersTasksFirst(t *testing.T) {
	h := newHarness(t, Config{})
	l := (<-h.acquire("alice", 0)).Lease
	first := h.submit(broker.TaskRequest{ID: "1", Tool: "block", Lease: l.Handle, Holder: broker.Holder{Principal: "alice"}})
	pollUntil(t, h.dev.isRunning, "task 1 never started")
	bob := h.submit(broker.TaskRequest{ID: "b", Tool: "noop", WaitMS: 30_000, Holder: broker.Holder{Principal: "bob"}})
	second := h.submit(broker.TaskRequest{ID: "2", Tool: "noop", Lease: l.Handle, Holder: broker.Holder{Principal: "alice"}})
	h.queueShows("2", "b")
	h.dev.release <- struct{}{}
	expect(t, first.wait(), broker.OutcomeSucceeded, "")
	expect(t, second.wait(), broker.OutcomeSucceeded, "")
	h.queueShows("b")
	require.True(t, h.releaseOf(l.Handle).OK)
	expect(t, bob.wait(), broker.OutcomeSucceeded, "")
	h.queueShows()
}

// A waiter that leaves the queue drops out of the entry, however it leaves: aborted, its
// lease request withdrawn, its wait run out. A lease request shows by its tag, not its id.
func TestQueueShowsOnlyWhoStillWaits(t *testing.T) {
	h := newHarness(t, Config{})
	running := h.submit(broker.TaskRequest{ID: "x", Tool: "block"})
	pollUntil(t, h.dev.isRunning, "task x never started")
	quinn := broker.Holder{Principal: "quinn"} // one principal: its waiters keep their order
	q1 := h.submit(broker.TaskRequest{ID: "q1", Tool: "noop", WaitMS: 30_000, Holder: quinn})
	q2 := h.submit(broker.TaskRequest{ID: "q2", Tool: "noop", WaitMS: 30_000, Holder: quinn})
	bob := h.acquireAs("acq_bob", "quinn", 30_000)
	tag := broker.RequestTag("acq_bob")
	require.NotContains(t, tag, "acq_bob")
	h.queueShows("q1", "q2", tag)

	assert.Equal(t, []string{"q2"}, h.abort(broker.AbortRequest{TaskID: "q2", By: "test"}).Aborted)
	expect(t, q2.wait(), broker.OutcomeAborted, "")
	h.queueShows("q1", tag)

	require.True(t, h.withdrawOf("acq_bob").OK)
	assert.False(t, (<-bob).OK)
	h.queueShows("q1")

	short := h.submit(broker.TaskRequest{ID: "q3", Tool: "noop", WaitMS: 100, Holder: quinn})
	expect(t, short.wait(), broker.OutcomeRefused, broker.CodeWaitExpired)
	h.queueShows("q1")

	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	expect(t, q1.wait(), broker.OutcomeSucceeded, "")
	h.queueShows()
}

// countingMirror counts the registry entries shown.
type countingMirror struct {
	*recorder
	devices atomic.Int64
}

func (m *countingMirror) Device(d broker.DeviceEntry) {
	m.devices.Add(1)
	m.recorder.Device(d)
}

// A device nobody waits for shows its entry no more often than before the queue was shown:
// once as a task starts and once as it ends. A call that waits for nothing costs no write for
// the queue.
func TestUncontendedTasksShowNoQueue(t *testing.T) {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	t.Cleanup(sys.Shutdown)
	m := &countingMirror{recorder: &recorder{}}
	cfg := Config{Node: "n", Mirror: m, Metrics: NewMetrics(prometheus.NewRegistry())}
	props, started := NewNodeSupervisorProps(NewSchedulerProps(cfg), cfg.Metrics, "n")
	sys.Root.Spawn(props)
	h := &harness{t: t, root: sys.Root, sched: <-started, dev: &fakeDevice{serial: "d1", release: make(chan struct{})}, rec: m.recorder}
	t.Cleanup(func() { close(h.dev.release) })
	h.root.Send(h.sched, AddDevice{Device: h.dev})
	pollUntil(t, func() bool {
		return h.submit(broker.TaskRequest{ID: "probe", Tool: "noop"}).wait().Code != broker.CodeUnhealthy
	}, "the device never became healthy")

	// A waiter came and went: the queue was shown, then shown empty.
	running := h.submit(broker.TaskRequest{ID: "x", Tool: "block"})
	pollUntil(t, h.dev.isRunning, "task x never started")
	waiter := h.submit(broker.TaskRequest{ID: "w", Tool: "noop", WaitMS: 30_000})
	h.queueShows("w")
	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	expect(t, waiter.wait(), broker.OutcomeSucceeded, "")
	h.queueShows()
	pollUntil(t, func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.recorder.devices["d1"].State == broker.StateOnline // w's end is shown as its answer goes out
	}, "the device never showed free")

	before := m.devices.Load()
	const tasks = 20
	for i := range tasks {
		expect(t, h.submit(broker.TaskRequest{ID: "u" + string(rune('a'+i)), Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	}
	// The last task's end is shown as its answer goes out: wait for it, then count.
	pollUntil(t, func() bool { return m.devices.Load()-before >= 2*tasks }, "the tasks' entries were not shown")
	assert.Equal(t, int64(2*tasks), m.devices.Load()-before, "entries shown for %d uncontended tasks", tasks)
}
