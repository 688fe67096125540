package actors

// Tests written from the survivors of `scripts/mutate.sh scheduler` (gremlins): each holds a
// behaviour of the scheduler, its leases, drains and device actors that no other test held.

import (
	"context"
	"errors"
	"log/slog"
	"strings"
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

// rig is a device whose tools are: noop; block, which runs until the test frees it or its
// context ends (the driver then reports the context's error); hush, the same reporting no
// error; stuck, which ignores cancellation until the test ends; panic. health, when set, is
// its health check.
type rig struct {
	serial  string
	tags    []string
	free    chan struct{} // a block or hush task returns when it receives
	gone    chan struct{} // closed when the test ends: stuck tasks return
	health  func(ctx context.Context) error
	running atomic.Int32
}

var _ Device = (*rig)(nil)

func newRig(t *testing.T, serial string) *rig {
	r := &rig{serial: serial, tags: []string{"lab"}, free: make(chan struct{}), gone: make(chan struct{})}
	t.Cleanup(func() { close(r.gone) })
	return r
}

func (r *rig) Info() broker.DeviceEntry {
	return broker.DeviceEntry{Serial: r.serial, Platform: "android", Tags: r.tags}
}

func (r *rig) Deadline(_ string, askedMS int64) (time.Duration, error) {
	if askedMS > 0 {
		return time.Duration(askedMS) * time.Millisecond, nil
	}
	return 10 * time.Second, nil
}

func (r *rig) Execute(ctx context.Context, req broker.TaskRequest, _ func(broker.Progress)) broker.TaskResult {
	r.running.Add(1)
	defer r.running.Add(-1)
	switch req.Tool {
	case "block", "hush":
		select {
		case <-r.free:
		case <-ctx.Done():
			if req.Tool == "hush" {
				return broker.TaskResult{Outcome: broker.OutcomeFailed}
			}
			return broker.TaskResult{Outcome: broker.OutcomeFailed, Error: ctx.Err().Error()}
		}
	case "stuck": // ignores its context: returns at finish or the test's end
		select {
		case <-r.gone:
		case <-r.free:
		}
	case "panic":
		panic("boom")
	}
	return broker.TaskResult{Outcome: broker.OutcomeSucceeded}
}

func (r *rig) Health(ctx context.Context) error {
	if r.health != nil {
		return r.health(ctx)
	}
	return nil
}

func (r *rig) isRunning() bool { return r.running.Load() > 0 }

// finish lets the running block task return.
func (r *rig) finish(t *testing.T) {
	t.Helper()
	select {
	case r.free <- struct{}{}:
	case <-time.After(10 * time.Second):
		t.Fatalf("no block task of %s took the go-ahead", r.serial)
	}
}

// registry is a Mirror that keeps, besides events and task records, every device entry the
// scheduler writes: what list_available_devices and a restarted node read.
type registry struct {
	*recorder
	mu      sync.Mutex
	entries map[string][]broker.DeviceEntry
}

func (r *registry) Device(e broker.DeviceEntry) {
	r.mu.Lock()
	r.entries[e.Serial] = append(r.entries[e.Serial], e)
	r.mu.Unlock()
}

// farm is one node's scheduler with rigs, its metrics and its registry.
type farm struct {
	t     *testing.T
	root  *actor.RootContext
	sched *actor.PID
	m     *Metrics
	reg   *registry
}

func newFarm(t *testing.T, cfg Config, rigs ...*rig) *farm {
	t.Helper()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	t.Cleanup(sys.Shutdown)
	f := &farm{t: t, root: sys.Root, m: NewMetrics(prometheus.NewRegistry()),
		reg: &registry{recorder: &recorder{}, entries: map[string][]broker.DeviceEntry{}}}
	f.m.KnowNode("n")
	cfg.Node, cfg.Mirror, cfg.Metrics = "n", f.reg, f.m
	props, started := NewNodeSupervisorProps(NewSchedulerProps(cfg), f.m, "n")
	sys.Root.Spawn(props)
	f.sched = recv(t, started, "the scheduler's start")
	for _, r := range rigs {
		f.root.Send(f.sched, AddDevice{Device: r})
	}
	return f
}

// recv waits for one value from ch, failing the test after 10 s.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no answer: %s", what)
	}
	var zero T
	return zero
}

// entry is the last registry entry of serial.
func (f *farm) entry(serial string) broker.DeviceEntry {
	f.reg.mu.Lock()
	defer f.reg.mu.Unlock()
	es := f.reg.entries[serial]
	if len(es) == 0 {
		return broker.DeviceEntry{}
	}
	return es[len(es)-1]
}

// entries is how many registry entries serial has had.
func (f *farm) entries(serial string) int {
	f.reg.mu.Lock()
	defer f.reg.mu.Unlock()
	return len(f.reg.entries[serial])
}

// waitState waits until the registry shows serial in state.
func (f *farm) waitState(serial, state string) {
	f.t.Helper()
	pollUntil(f.t, func() bool { return f.entry(serial).State == state }, "device "+serial+" never showed "+state)
}

// deviceEvents lists the device events of serial so far, as "what: reason".
func (f *farm) deviceEvents(serial string) []string {
	f.reg.recorder.mu.Lock()
	defer f.reg.recorder.mu.Unlock()
	var out []string
	for _, ev := range f.reg.events {
		if ev.Kind == "device" && ev.Serial == serial {
			out = append(out, ev.What+": "+ev.Reason)
		}
	}
	return out
}

func (f *farm) submit(req broker.TaskRequest) pending {
	p := make(pending, 1)
	f.root.Send(f.sched, SubmitTask{Req: req, Reply: func(r broker.TaskResult) { p <- r }})
	return p
}

func (f *farm) acquire(req broker.AcquireRequest) <-chan broker.LeaseAnswer {
	p := make(chan broker.LeaseAnswer, 1)
	f.root.Send(f.sched, AcquireLease{Req: req, Reply: func(a broker.LeaseAnswer) { p <- a }})
	return p
}

// lease acquires serial for holder now and fails the test if it is not granted.
func (f *farm) lease(serial string, holder broker.Holder) *broker.Lease {
	f.t.Helper()
	a := recv(f.t, f.acquire(broker.AcquireRequest{Serial: serial, Holder: holder}), "acquire")
	require.True(f.t, a.OK, "acquire %s for %s: %+v", serial, holder, a)
	return a.Lease
}

func (f *farm) release(serial, handle string) broker.LeaseAnswer {
	p := make(chan broker.LeaseAnswer, 1)
	f.root.Send(f.sched, ReleaseLease{Req: broker.ReleaseRequest{Serial: serial, Handle: handle}, Reply: func(a broker.LeaseAnswer) { p <- a }})
	return recv(f.t, p, "release")
}

func (f *farm) abort(req broker.AbortRequest) broker.AbortAnswer {
	p := make(chan broker.AbortAnswer, 1)
	f.root.Send(f.sched, AbortTasks{Req: req, Reply: func(a broker.AbortAnswer) { p <- a }})
	return recv(f.t, p, "abort")
}

// leases lists the node's leases. The scheduler handles messages in order, so its answer also
// says that everything sent before was handled.
func (f *farm) leases() []broker.Lease {
	p := make(chan broker.LeasesAnswer, 1)
	f.root.Send(f.sched, ListLeases{Reply: func(a broker.LeasesAnswer) { p <- a }})
	return recv(f.t, p, "list leases").Leases
}

func (f *farm) drain(action string) broker.DrainAnswer {
	p := make(chan broker.DrainAnswer, 1)
	f.root.Send(f.sched, Drain{Req: broker.DrainRequest{Action: action, By: "ops"}, Reply: func(a broker.DrainAnswer) { p <- a }})
	return recv(f.t, p, "drain")
}

// unanswered fails the test if p has an answer already.
func unanswered(t *testing.T, p pending, what string) {
	t.Helper()
	select {
	case r := <-p:
		t.Fatalf("%s was answered: %+v", what, r)
	default:
	}
}

// The health check of a (re)started device actor has ten graces: a check slower than the
// grace (an adb round trip on a busy host) still brings the device online.
func TestHealthCheckGetsTenGraces(t *testing.T) {
	const grace = 100 * time.Millisecond
	var left atomic.Int64
	slow := newRig(t, "d1")
	slow.health = func(ctx context.Context) error {
		dl, ok := ctx.Deadline()
		if !ok {
			return errors.New("the health check has no deadline")
		}
		left.Store(int64(time.Until(dl)))
		select {
		case <-time.After(3 * grace): // the device answers slowly
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f := newFarm(t, Config{Grace: grace}, slow)
	pollUntil(t, func() bool {
		e := f.entry("d1")
		return e.State == broker.StateOnline || e.State == broker.StateUnhealthy && e.Reason != "starting"
	}, "the health check never reported")
	e := f.entry("d1")
	require.Equal(t, broker.StateOnline, e.State, "a health check of 3 graces failed: %s", e.Reason)
	got := time.Duration(left.Load())
	assert.Greater(t, got, 5*grace, "the health check's time left")
	assert.LessOrEqual(t, got, 10*grace, "the health check's time left")
}

// A driver that panics fails its task with driver_panic (not a bare failure), its device's
// actor is restarted and counted, and the device takes tasks again.
func TestDriverPanicIsReportedAndTheActorRestarted(t *testing.T) {
	f := newFarm(t, Config{}, newRig(t, "d1"))
	f.waitState("d1", broker.StateOnline)
	r := f.submit(broker.TaskRequest{ID: "p", Serial: "d1", Tool: "panic"}).wait()
	expect(t, r, broker.OutcomeFailed, broker.CodePanic)
	assert.Contains(t, r.Error, "the driver panicked (boom)")
	pollUntil(t, func() bool { return sampleValue(f.m.restarts.WithLabelValues("n", "device")) == 1 }, "the device actor's restart was not counted")
	expect(t, f.submit(broker.TaskRequest{ID: "n", Serial: "d1", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
}

// A drain refuses the waiters of others but keeps the holder's own queued tasks, which run
// under the lease; the answer counts only the refused, and the queue gauges follow.
func TestDrainKeepsTheHoldersQueuedTasks(t *testing.T) {
	dev := newRig(t, "d1")
	f := newFarm(t, Config{}, dev)
	f.waitState("d1", broker.StateOnline)
	l := f.lease("d1", broker.Holder{Principal: "alice"})
	running := f.submit(broker.TaskRequest{ID: "a-run", Serial: "d1", Tool: "block", Lease: l.Handle})
	pollUntil(t, dev.isRunning, "alice's task never started")
	mine := f.submit(broker.TaskRequest{ID: "a-next", Serial: "d1", Tool: "noop", Lease: l.Handle})
	carol := f.submit(broker.TaskRequest{ID: "c", Serial: "d1", Tool: "noop", WaitMS: 60_000})
	bob := f.acquire(broker.AcquireRequest{Serial: "d1", Holder: broker.Holder{Principal: "bob"}, WaitMS: 60_000})
	ls := f.leases()
	require.Len(t, ls, 1)
	require.Equal(t, 3, ls[0].QueueLen)

	ans := f.drain(broker.DrainStart)
	assert.True(t, ans.Draining)
	assert.Equal(t, 2, ans.Refused, "carol and bob are refused, alice's task is not")
	assert.Equal(t, 1, ans.Queued, "alice's task stays queued")
	expect(t, carol.wait(), broker.OutcomeRefused, broker.CodeDraining)
	if a := recv(t, bob, "bob's acquire"); a.OK || a.Code != broker.CodeDraining {
		t.Fatalf("bob waiting for the lease: %+v", a)
	}
	unanswered(t, mine, "alice's queued task")
	assert.Equal(t, 1.0, sampleValue(f.m.deviceQueue.WithLabelValues("n", "d1")), "corral_device_queue_depth after the drain")
	assert.Equal(t, 1.0, sampleValue(f.m.queueDepth.WithLabelValues("n")), "corral_queue_depth after the drain")

	dev.finish(t)
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	r := mine.wait()
	expect(t, r, broker.OutcomeSucceeded, "")
	assert.Equal(t, l.Epoch, r.LeaseEpoch)
	assert.Equal(t, 0.0, sampleValue(f.m.deviceQueue.WithLabelValues("n", "d1")))
	assert.Equal(t, 0.0, sampleValue(f.m.queueDepth.WithLabelValues("n")))
}

// Asking for a held or busy device without wait_seconds is refused at once as busy, naming
// the holder (actors/README.md rule 2); it is not queued.
func TestAcquireWithoutWaitIsRefusedAsBusy(t *testing.T) {
	dev := newRig(t, "d1")
	f := newFarm(t, Config{}, dev)
	f.waitState("d1", broker.StateOnline)
	l := f.lease("d1", broker.Holder{Principal: "alice"})
	a := recv(t, f.acquire(broker.AcquireRequest{Serial: "d1", Holder: broker.Holder{Principal: "bob"}}), "bob's acquire")
	require.False(t, a.OK, "%+v", a)
	assert.Equal(t, broker.CodeBusy, a.Code)
	require.NotNil(t, a.Lease, "the refusal names the holder")
	assert.Equal(t, "alice", a.Lease.Holder.Principal)
	assert.Equal(t, l.Epoch, a.Lease.Epoch)
	assert.Empty(t, a.Lease.Handle)
	require.True(t, f.release("d1", l.Handle).OK)

	running := f.submit(broker.TaskRequest{ID: "c", Serial: "d1", Tool: "block", Holder: broker.Holder{Principal: "carol"}})
	pollUntil(t, dev.isRunning, "carol's task never started")
	a = recv(t, f.acquire(broker.AcquireRequest{Serial: "d1", Holder: broker.Holder{Principal: "dave"}}), "dave's acquire")
	require.False(t, a.OK, "%+v", a)
	assert.Equal(t, broker.CodeBusy, a.Code)
	require.NotNil(t, a.Lease)
	assert.Equal(t, "carol", a.Lease.Holder.Principal)
	assert.Empty(t, f.leases(), "dave's request was not queued")
	dev.finish(t)
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
}

// A lease's asked maximum is kept when below the node's, capped at the node's otherwise; the
// idle expiry never passes it.
func TestAskedLeaseMaximumIsCappedByTheNode(t *testing.T) {
	f := newFarm(t, Config{LeaseMax: time.Hour}, newRig(t, "d1"))
	f.waitState("d1", broker.StateOnline)
	for _, c := range []struct {
		name  string
		asked time.Duration
		want  time.Duration
	}{
		{"below the node's", time.Minute, time.Minute},
		{"above the node's", 2 * time.Hour, time.Hour},
		{"none", 0, time.Hour},
	} {
		a := recv(t, f.acquire(broker.AcquireRequest{Serial: "d1", Holder: broker.Holder{Principal: "alice"}, MaxMS: c.asked.Milliseconds()}), c.name)
		require.True(t, a.OK, "%s: %+v", c.name, a)
		assert.Equal(t, c.want, a.Lease.MaxUntil.Sub(a.Lease.AcquiredAt), c.name)
		assert.False(t, a.Lease.ExpiresAt.After(a.Lease.MaxUntil), "%s: expiry past the maximum", c.name)
		require.True(t, f.release("d1", a.Lease.Handle).OK, c.name)
	}
}

// While its holder's task runs, a lease outlives its idle TTL; the task's end renews it, and it
// expires one TTL after that (actors/README.md rule 4), not later: the scheduler's checks while
// the task ran do not delay it. Then the holder is fenced and others get the device.
func TestLeaseLivesWhileItsHoldersTaskRuns(t *testing.T) {
	// Long enough that the margin below (three TTLs) holds on a loaded machine; a lease
	// re-checked ten TTLs apart would still be seven TTLs late.
	const ttl = 500 * time.Millisecond
	dev := newRig(t, "d1")
	f := newFarm(t, Config{LeaseTTL: ttl}, dev)
	f.waitState("d1", broker.StateOnline)
	l := f.lease("d1", broker.Holder{Principal: "alice"})
	running := f.submit(broker.TaskRequest{ID: "long", Serial: "d1", Tool: "block", Lease: l.Handle})
	pollUntil(t, dev.isRunning, "alice's task never started")
	// Three TTLs pass while the task runs; the lease is checked all along.
	for end := time.Now().Add(3 * ttl); time.Now().Before(end); {
		require.Len(t, f.leases(), 1, "the lease ended while its holder's task ran")
		<-time.After(ttl / 20)
	}
	freed := time.Now()
	dev.finish(t)
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	pollUntil(t, func() bool { return len(f.leases()) == 0 }, "the lease never expired")
	gone := time.Since(freed)
	assert.GreaterOrEqual(t, gone, ttl, "the lease expired less than a TTL after its task ended: the end did not renew it")
	assert.Less(t, gone, 4*ttl, "the lease expired long after a TTL past its task's end")
	expect(t, f.submit(broker.TaskRequest{ID: "late", Serial: "d1", Tool: "noop", Lease: l.Handle}).wait(), broker.OutcomeRefused, broker.CodeStaleLease)
	b := f.lease("d1", broker.Holder{Principal: "bob"})
	assert.Equal(t, l.Epoch+1, b.Epoch)
}

// A holder's release refuses the holder's own queued tasks (their lease is gone) but not the
// others waiting for the device: they run once the holder's running task ends.
func TestReleaseRefusesTheHoldersQueueAndServesOthers(t *testing.T) {
	dev := newRig(t, "d1")
	f := newFarm(t, Config{}, dev)
	f.waitState("d1", broker.StateOnline)
	l := f.lease("d1", broker.Holder{Principal: "alice"})
	running := f.submit(broker.TaskRequest{ID: "a-run", Serial: "d1", Tool: "block", Lease: l.Handle})
	pollUntil(t, dev.isRunning, "alice's task never started")
	mine := f.submit(broker.TaskRequest{ID: "a-next", Serial: "d1", Tool: "noop", Lease: l.Handle})
	carol := f.submit(broker.TaskRequest{ID: "c", Serial: "d1", Tool: "noop", WaitMS: 60_000, Holder: broker.Holder{Principal: "carol"}})
	require.Equal(t, 2, f.leases()[0].QueueLen)

	require.True(t, f.release("d1", l.Handle).OK)
	unanswered(t, carol, "carol's queued task") // anything the release set off was answered before it
	r := mine.wait()
	expect(t, r, broker.OutcomeRefused, broker.CodeStaleLease)
	assert.Contains(t, r.Error, "your lease of d1 was released (released by its holder) while this task waited")

	dev.finish(t)
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	r = carol.wait()
	expect(t, r, broker.OutcomeSucceeded, "")
	assert.Equal(t, l.Epoch+1, r.LeaseEpoch, "carol's implicit lease is the next grant")
}

// An aborted or timed-out task says why in its error, and keeps what the driver said.
func TestAbortAndDeadlineSayWhy(t *testing.T) {
	dev := newRig(t, "d1")
	f := newFarm(t, Config{}, dev)
	f.waitState("d1", broker.StateOnline)

	a := f.submit(broker.TaskRequest{ID: "a", Serial: "d1", Tool: "block"})
	pollUntil(t, dev.isRunning, "task a never started")
	require.Equal(t, []string{"a"}, f.abort(broker.AbortRequest{TaskID: "a", By: "alice"}).Aborted)
	r := a.wait()
	expect(t, r, broker.OutcomeAborted, "")
	assert.Equal(t, "aborted by alice; context canceled", r.Error)

	b := f.submit(broker.TaskRequest{ID: "b", Serial: "d1", Tool: "hush"})
	pollUntil(t, dev.isRunning, "task b never started")
	require.Equal(t, []string{"b"}, f.abort(broker.AbortRequest{TaskID: "b"}).Aborted)
	r = b.wait()
	expect(t, r, broker.OutcomeAborted, "")
	assert.Equal(t, "aborted by abort_task", r.Error, "an abort without a name")

	r = f.submit(broker.TaskRequest{ID: "c", Serial: "d1", Tool: "block", TimeoutMS: 30}).wait()
	expect(t, r, broker.OutcomeTimedOut, "")
	assert.Equal(t, "deadline of 30ms passed; context deadline exceeded", r.Error)
}

// abort_task by device with all cancels the running task, leased or not, and its holder's
// queued tasks there, and nothing on other devices; by a stale lease it aborts nothing;
// without a device it aborts every device's running task. Each abort is counted once.
func TestAbortByDeviceLeaseAndNode(t *testing.T) {
	d1, d2 := newRig(t, "d1"), newRig(t, "d2")
	f := newFarm(t, Config{}, d1, d2)
	f.waitState("d1", broker.StateOnline)
	f.waitState("d2", broker.StateOnline)
	alice := broker.Holder{Principal: "alice"}
	old := f.lease("d1", alice)
	require.True(t, f.release("d1", old.Handle).OK)
	l := f.lease("d1", alice)
	r1 := f.submit(broker.TaskRequest{ID: "r1", Serial: "d1", Tool: "block", Lease: l.Handle, Holder: alice})
	q1 := f.submit(broker.TaskRequest{ID: "q1", Serial: "d1", Tool: "noop", Lease: l.Handle, Holder: alice})
	r2 := f.submit(broker.TaskRequest{ID: "r2", Serial: "d2", Tool: "block", Holder: broker.Holder{Principal: "bob"}})
	pollUntil(t, func() bool { return d1.isRunning() && d2.isRunning() }, "r1 and r2 never both ran")
	aborts := func() float64 { return sampleValue(f.m.aborts.WithLabelValues("n", "abort_task")) }

	require.Empty(t, f.abort(broker.AbortRequest{Lease: old.Handle, All: true, By: "alice"}).Aborted, "an abort by a released lease")
	assert.Equal(t, 0.0, aborts())

	ans := f.abort(broker.AbortRequest{Serial: "d1", All: true, By: "ops"})
	require.ElementsMatch(t, []string{"r1", "q1"}, ans.Aborted)
	expect(t, r1.wait(), broker.OutcomeAborted, "")
	expect(t, q1.wait(), broker.OutcomeAborted, "")
	unanswered(t, r2, "d2's task")
	assert.True(t, d2.isRunning(), "d2's task still runs")
	assert.Equal(t, 2.0, aborts())

	r1 = f.submit(broker.TaskRequest{ID: "r1b", Serial: "d1", Tool: "block", Lease: l.Handle, Holder: alice})
	pollUntil(t, d1.isRunning, "r1b never ran")
	ans = f.abort(broker.AbortRequest{By: "ops"})
	require.ElementsMatch(t, []string{"r1b", "r2"}, ans.Aborted)
	expect(t, r1.wait(), broker.OutcomeAborted, "")
	expect(t, r2.wait(), broker.OutcomeAborted, "")
	assert.Equal(t, 4.0, aborts())
}

// A device unplugged and plugged back comes online again with its epochs moving on; a device
// added twice keeps its first actor.
func TestUnpluggedDeviceComesBack(t *testing.T) {
	f := newFarm(t, Config{}, newRig(t, "d1"))
	f.waitState("d1", broker.StateOnline)
	before := f.submit(broker.TaskRequest{ID: "a", Serial: "d1", Tool: "noop"}).wait()
	expect(t, before, broker.OutcomeSucceeded, "")
	f.leases() // the task's answer comes before the registry write of its end

	n := f.entries("d1")
	f.root.Send(f.sched, AddDevice{Device: newRig(t, "d1")})
	f.leases() // the second AddDevice was handled
	require.Equal(t, n, f.entries("d1"), "a device added twice was shown again: %+v", f.entry("d1"))
	assert.Equal(t, broker.StateOnline, f.entry("d1").State)

	f.root.Send(f.sched, RemoveDevice{Serial: "d1", Reason: "unplugged"})
	f.waitState("d1", broker.StateOffline)
	expect(t, f.submit(broker.TaskRequest{ID: "b", Serial: "d1", Tool: "noop"}).wait(), broker.OutcomeRefused, broker.CodeOffline)

	f.root.Send(f.sched, AddDevice{Device: newRig(t, "d1")})
	f.leases()
	require.NotEqual(t, broker.StateOffline, f.entry("d1").State, "the device plugged back stays offline")
	f.waitState("d1", broker.StateOnline)
	after := f.submit(broker.TaskRequest{ID: "c", Serial: "d1", Tool: "noop"}).wait()
	expect(t, after, broker.OutcomeSucceeded, "")
	assert.Greater(t, after.LeaseEpoch, before.LeaseEpoch)
}

// Every grant moves the device's epoch on by one, an implicit lease's as an explicit one's,
// and the registry shows it.
func TestImplicitLeasesMoveTheEpochOn(t *testing.T) {
	f := newFarm(t, Config{}, newRig(t, "d1"))
	f.waitState("d1", broker.StateOnline)
	r1 := f.submit(broker.TaskRequest{ID: "1", Serial: "d1", Tool: "noop"}).wait()
	expect(t, r1, broker.OutcomeSucceeded, "")
	r2 := f.submit(broker.TaskRequest{ID: "2", Serial: "d1", Tool: "noop"}).wait()
	expect(t, r2, broker.OutcomeSucceeded, "")
	assert.Equal(t, r1.LeaseEpoch+1, r2.LeaseEpoch)
	l := f.lease("d1", broker.Holder{Principal: "alice"})
	assert.Equal(t, r2.LeaseEpoch+1, l.Epoch)
	require.True(t, f.release("d1", l.Handle).OK)
	r3 := f.submit(broker.TaskRequest{ID: "3", Serial: "d1", Tool: "noop"}).wait()
	expect(t, r3, broker.OutcomeSucceeded, "")
	assert.Equal(t, l.Epoch+1, r3.LeaseEpoch)
	f.leases()
	assert.Equal(t, r3.LeaseEpoch, f.entry("d1").Epoch)
}

// When the node's leases are revoked, the registry shows each device's new epoch even where
// nothing else changed: a node restarted later continues from it, fencing the old holders.
func TestRevokeAllShowsTheNewEpoch(t *testing.T) {
	f := newFarm(t, Config{}, newRig(t, "d1"))
	f.waitState("d1", broker.StateOnline)
	r := f.submit(broker.TaskRequest{ID: "1", Serial: "d1", Tool: "noop"}).wait()
	expect(t, r, broker.OutcomeSucceeded, "")
	f.leases()
	require.Equal(t, r.LeaseEpoch, f.entry("d1").Epoch)
	f.root.Send(f.sched, RevokeAll{Reason: "was declared lost"})
	f.leases()
	e := f.entry("d1")
	assert.Equal(t, broker.StateOnline, e.State)
	assert.Equal(t, r.LeaseEpoch+1, e.Epoch, "the registry's epoch after the revocation")
}

// The registry says why a device is unhealthy, and that its node drains; a drain and undrain
// of a node with an unhealthy device changes only that flag.
func TestRegistryShowsUnhealthyReasonAndDrain(t *testing.T) {
	sick := newRig(t, "d2")
	sick.health = func(context.Context) error { return errors.New("battery at 2%") }
	f := newFarm(t, Config{}, newRig(t, "d1"), sick)
	f.waitState("d1", broker.StateOnline)
	// The refusal shows the scheduler has the health check's answer.
	pollUntil(t, func() bool {
		r := f.submit(broker.TaskRequest{ID: "p", Serial: "d2", Tool: "noop"}).wait()
		return r.Code == broker.CodeUnhealthy && r.Error != "" && !strings.Contains(r.Error, "(starting)")
	}, "d2's failed health check never reached the scheduler")
	e := f.entry("d2")
	assert.Equal(t, broker.StateUnhealthy, e.State)
	assert.Equal(t, "battery at 2%", e.Reason)
	assert.False(t, e.Draining)

	f.drain(broker.DrainStart)
	assert.True(t, f.entry("d2").Draining, "the unhealthy device of a draining node")
	assert.Equal(t, broker.StateUnhealthy, f.entry("d2").State)
	assert.Equal(t, broker.StateDraining, f.entry("d1").State)
	f.drain(broker.DrainUndo)
	assert.False(t, f.entry("d2").Draining, "the unhealthy device of an undrained node")
	assert.Equal(t, broker.StateOnline, f.entry("d1").State)
}

// When a lease ends while a task runs under it, the registry names the task's caller, not the
// gone lease's holder.
func TestRegistryNamesTheRunningTaskAfterTheLeaseEnds(t *testing.T) {
	dev := newRig(t, "d1")
	f := newFarm(t, Config{}, dev)
	f.waitState("d1", broker.StateOnline)
	l := f.lease("d1", broker.Holder{Principal: "alice", Client: "cli"})
	running := f.submit(broker.TaskRequest{ID: "r", Serial: "d1", Tool: "block", Lease: l.Handle, Holder: broker.Holder{Principal: "alice", Client: "ci-bot"}})
	pollUntil(t, dev.isRunning, "the task never started")
	f.leases()
	assert.Equal(t, "alice (cli)", f.entry("d1").Holder, "while leased")
	require.True(t, f.release("d1", l.Handle).OK)
	e := f.entry("d1")
	assert.Equal(t, broker.StateBusy, e.State)
	assert.Equal(t, "alice (ci-bot)", e.Holder, "after the release, while the task runs")
	dev.finish(t)
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	f.leases()
	assert.Empty(t, f.entry("d1").Holder)
}

// Tasks flipping a device busy and back write no device events (their records tell that), but
// a driver stuck past its grace does: the device shows unhealthy, then online once the driver
// returns (its restarted actor's check waits for the call, health.go), and takes tasks again.
func TestTasksWriteNoDeviceEventsButAStuckDriverDoes(t *testing.T) {
	rig := newRig(t, "d1")
	f := newFarm(t, Config{Grace: 50 * time.Millisecond}, rig)
	f.waitState("d1", broker.StateOnline)
	n := len(f.deviceEvents("d1"))
	for _, id := range []string{"1", "2"} {
		expect(t, f.submit(broker.TaskRequest{ID: id, Serial: "d1", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	}
	f.leases()
	assert.Len(t, f.deviceEvents("d1"), n, "device events of two routine tasks: %v", f.deviceEvents("d1"))

	r := f.submit(broker.TaskRequest{ID: "s", Serial: "d1", Tool: "stuck", TimeoutMS: 30}).wait()
	expect(t, r, broker.OutcomeTimedOut, "")
	assert.Contains(t, r.Error, "the driver did not stop after cancellation")
	rig.finish(t) // the stuck driver returns at last
	f.waitState("d1", broker.StateOnline)
	assert.Contains(t, f.deviceEvents("d1")[n:], "unhealthy: "+errDriverStuck.Error())
	expect(t, f.submit(broker.TaskRequest{ID: "3", Serial: "d1", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
}
