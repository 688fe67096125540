package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/logtest"
)

// fakeDevice runs tasks by a function; "block" tasks wait for release or cancellation.
type fakeDevice struct {
	serial  string
	tags    []string
	release chan struct{}
	mu      sync.Mutex
	running int
	overlap bool
}

var _ Device = (*fakeDevice)(nil)

func (d *fakeDevice) Info() broker.DeviceEntry {
	return broker.DeviceEntry{Serial: d.serial, Platform: "android", Tags: d.tags}
}

func (d *fakeDevice) Deadline(tool string, askedMS int64) (time.Duration, error) {
	if tool == "unknown" {
		return 0, fmt.Errorf("unknown tool %q", tool)
	}
	if askedMS > 0 {
		return time.Duration(askedMS) * time.Millisecond, nil
	}
	return 10 * time.Second, nil
}

func (d *fakeDevice) Execute(ctx context.Context, req broker.TaskRequest, _ func(broker.Progress)) broker.TaskResult {
	d.mu.Lock()
	d.running++
	if d.running > 1 {
		d.overlap = true
	}
	d.mu.Unlock()
	defer func() { d.mu.Lock(); d.running--; d.mu.Unlock() }()
	if req.Tool == "block" {
		select {
		case <-d.release:
		case <-ctx.Done():
			return broker.TaskResult{Outcome: broker.OutcomeFailed, Error: ctx.Err().Error()}
		}
	}
	return broker.TaskResult{Outcome: broker.OutcomeSucceeded}
}

func (d *fakeDevice) isRunning() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.running > 0
}

func (d *fakeDevice) Health(context.Context) error { return nil }

// recorder is a Mirror that keeps what it is told.
type recorder struct {
	mu      sync.Mutex
	events  []broker.Event
	records []broker.TaskResult
	devices map[string]broker.DeviceEntry // as last shown
}

func (r *recorder) Device(d broker.DeviceEntry) {
	r.mu.Lock()
	if r.devices == nil {
		r.devices = map[string]broker.DeviceEntry{}
	}
	r.devices[d.Serial] = d
	r.mu.Unlock()
}
func (r *recorder) Lease(string, *broker.Lease) {}
func (r *recorder) Event(ev broker.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}
func (r *recorder) TaskRecord(res broker.TaskResult) {
	r.mu.Lock()
	r.records = append(r.records, res)
	r.mu.Unlock()
}

type harness struct {
	t     *testing.T
	root  *actor.RootContext
	sched *actor.PID
	dev   *fakeDevice
	rec   *recorder
}

func newHarness(t *testing.T, cfg Config) *harness {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	t.Cleanup(sys.Shutdown)
	rec := &recorder{}
	cfg.Node, cfg.Mirror, cfg.Metrics = "n", rec, NewMetrics(prometheus.NewRegistry())
	props, started := NewNodeSupervisorProps(NewSchedulerProps(cfg), cfg.Metrics, "n")
	sys.Root.Spawn(props)
	h := &harness{t: t, root: sys.Root, sched: <-started, dev: &fakeDevice{serial: "d1", tags: []string{"lab"}, release: make(chan struct{})}, rec: rec}
	t.Cleanup(func() { close(h.dev.release) })
	h.root.Send(h.sched, AddDevice{Device: h.dev})
	// Wait for the device's health check.
	deadline := time.Now().Add(5 * time.Second)
	for h.submit(broker.TaskRequest{ID: "probe", Serial: "d1", Tool: "noop"}).wait().Code == broker.CodeUnhealthy {
		if time.Now().After(deadline) {
			t.Fatal("device never became healthy")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return h
}

type pending chan broker.TaskResult

func (p pending) wait() broker.TaskResult {
	select {
	case r := <-p:
		return r
	case <-time.After(10 * time.Second):
		return broker.TaskResult{Outcome: "no answer"}
	}
}

func (h *harness) submit(req broker.TaskRequest) pending {
	p := make(pending, 1)
	if req.Serial == "" {
		req.Serial = "d1"
	}
	h.root.Send(h.sched, SubmitTask{Req: req, Reply: func(r broker.TaskResult) { p <- r }})
	return p
}

func (h *harness) acquire(holder string, waitMS int64) chan broker.LeaseAnswer {
	p := make(chan broker.LeaseAnswer, 1)
	h.root.Send(h.sched, AcquireLease{Req: broker.AcquireRequest{Serial: "d1", Holder: broker.Holder{Principal: holder}, WaitMS: waitMS},
		Reply: func(a broker.LeaseAnswer) { p <- a }})
	return p
}

func (h *harness) abort(req broker.AbortRequest) broker.AbortAnswer {
	p := make(chan broker.AbortAnswer, 1)
	h.root.Send(h.sched, AbortTasks{Req: req, Reply: func(a broker.AbortAnswer) { p <- a }})
	return <-p
}

func (h *harness) release(handle string) broker.LeaseAnswer {
	p := make(chan broker.LeaseAnswer, 1)
	h.root.Send(h.sched, ReleaseLease{Req: broker.ReleaseRequest{Serial: "d1", Handle: handle}, Reply: func(a broker.LeaseAnswer) { p <- a }})
	return <-p
}

func expect(t *testing.T, r broker.TaskResult, outcome, code string) {
	t.Helper()
	if r.Outcome != outcome || r.Code != code {
		t.Fatalf("got %s/%s (%s), want %s/%s", r.Outcome, r.Code, r.Error, outcome, code)
	}
}

func TestImplicitLeaseBusyAndWait(t *testing.T) {
	h := newHarness(t, Config{})
	running := h.submit(broker.TaskRequest{ID: "a", Tool: "block", Holder: broker.Holder{Principal: "alice"}})
	busy := h.submit(broker.TaskRequest{ID: "b", Tool: "noop", Holder: broker.Holder{Principal: "bob"}}).wait()
	expect(t, busy, broker.OutcomeRefused, broker.CodeBusy)
	if busy.Lease == nil || busy.Lease.Holder.Principal != "alice" {
		t.Fatalf("busy answer does not name the holder: %+v", busy.Lease)
	}
	waiting := h.submit(broker.TaskRequest{ID: "c", Tool: "noop", WaitMS: 5000})
	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	expect(t, waiting.wait(), broker.OutcomeSucceeded, "")
	if h.dev.overlap {
		t.Fatal("two tasks ran at once")
	}
}

func TestWaitExpires(t *testing.T) {
	h := newHarness(t, Config{})
	running := h.submit(broker.TaskRequest{ID: "a", Tool: "block"})
	expect(t, h.submit(broker.TaskRequest{ID: "b", Tool: "noop", WaitMS: 50}).wait(), broker.OutcomeRefused, broker.CodeWaitExpired)
	h.dev.release <- struct{}{}
	running.wait()
}

func TestHolderTasksQueueAndOthersWaitForLease(t *testing.T) {
	h := newHarness(t, Config{})
	l := (<-h.acquire("alice", 0)).Lease
	first := h.submit(broker.TaskRequest{ID: "1", Tool: "block", Lease: l.Handle})
	other := h.acquire("bob", 5000)                                                // waits for the lease
	second := h.submit(broker.TaskRequest{ID: "2", Tool: "noop", Lease: l.Handle}) // the holder's: runs before bob
	h.dev.release <- struct{}{}
	expect(t, first.wait(), broker.OutcomeSucceeded, "")
	expect(t, second.wait(), broker.OutcomeSucceeded, "")
	select {
	case a := <-other:
		t.Fatalf("bob got the lease while alice holds it: %+v", a)
	case <-time.After(50 * time.Millisecond):
	}
	if ans := h.release(l.Handle); !ans.OK {
		t.Fatalf("release: %+v", ans)
	}
	bob := <-other
	if !bob.OK || bob.Lease.Epoch != l.Epoch+1 {
		t.Fatalf("bob's lease after release: %+v (alice had epoch %d)", bob, l.Epoch)
	}
	expect(t, h.submit(broker.TaskRequest{ID: "3", Tool: "noop", Lease: l.Handle}).wait(), broker.OutcomeRefused, broker.CodeStaleLease)
}

func TestAbortRunningAndQueued(t *testing.T) {
	h := newHarness(t, Config{})
	l := (<-h.acquire("alice", 0)).Lease
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block", Lease: l.Handle})
	queued := h.submit(broker.TaskRequest{ID: "q", Tool: "noop", Lease: l.Handle})
	ans := h.abort(broker.AbortRequest{Lease: l.Handle, All: true, By: "test"})
	if len(ans.Aborted) != 2 {
		t.Fatalf("aborted %v, want r and q", ans.Aborted)
	}
	expect(t, running.wait(), broker.OutcomeAborted, "")
	expect(t, queued.wait(), broker.OutcomeAborted, "")
}

// An abort limited to tags (the caller's auth policy) leaves a device without them alone,
// even when the task id names its task.
func TestAbortLimitedToTags(t *testing.T) {
	h := newHarness(t, Config{})
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block"})
	pollUntil(t, h.dev.isRunning, "task r never started")
	if ans := h.abort(broker.AbortRequest{TaskID: "r", Tags: []string{"wifi"}, By: "test"}); len(ans.Aborted) != 0 {
		t.Fatalf("an abort limited to [wifi] aborted %v on a device tagged [lab]", ans.Aborted)
	}
	if ans := h.abort(broker.AbortRequest{TaskID: "r", Tags: []string{"wifi", "lab"}, By: "test"}); len(ans.Aborted) != 1 {
		t.Fatalf("an abort limited to [wifi lab] aborted %v, want r", ans.Aborted)
	}
	expect(t, running.wait(), broker.OutcomeAborted, "")
}

func TestDeadlineTimesOut(t *testing.T) {
	h := newHarness(t, Config{})
	expect(t, h.submit(broker.TaskRequest{ID: "t", Tool: "block", TimeoutMS: 30}).wait(), broker.OutcomeTimedOut, "")
	expect(t, h.submit(broker.TaskRequest{ID: "n", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	expect(t, h.submit(broker.TaskRequest{ID: "u", Tool: "unknown"}).wait(), broker.OutcomeRefused, broker.CodeBadInput)
}

func TestRevokeAllFencesAndAnswersWaiters(t *testing.T) {
	h := newHarness(t, Config{})
	l := (<-h.acquire("alice", 0)).Lease
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block", Lease: l.Handle})
	waiter := h.acquire("bob", 5000)
	h.root.Send(h.sched, RevokeAll{Reason: "was declared lost"})
	expect(t, running.wait(), broker.OutcomeLost, broker.CodeNodeLost)
	if a := <-waiter; a.OK || a.Code != broker.CodeNodeLost {
		t.Fatalf("waiter: %+v", a)
	}
	expect(t, h.submit(broker.TaskRequest{ID: "x", Tool: "noop", Lease: l.Handle}).wait(), broker.OutcomeRefused, broker.CodeStaleLease)
	again := (<-h.acquire("carol", 0)).Lease
	if again.Epoch <= l.Epoch+1 {
		t.Fatalf("epoch after revocation %d; want above %d", again.Epoch, l.Epoch+1)
	}
}

// A node shutting down takes its devices offline at once (nothing new starts while its
// running tasks return), and its running task ends failed with code interrupted, saying the
// node stopped it, not lost with node_lost. A task or lease request still waiting in the
// queue never ran: it is refused (offline) with a hint to retry when the node is back, not
// lost, which would say it may have run.
func TestRevokeAllAtShutdownInterruptsTheRunningTask(t *testing.T) {
	h := newHarness(t, Config{})
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block"})
	waiter := h.submit(broker.TaskRequest{ID: "w", Tool: "noop", WaitMS: 5000})
	leaseWaiter := h.acquire("bob", 5000) // the mailbox keeps the order: both queue before RevokeAll
	h.root.Send(h.sched, RevokeAll{Reason: "is shutting down", Shutdown: true})
	r := running.wait()
	expect(t, r, broker.OutcomeFailed, broker.CodeInterrupted)
	if !strings.Contains(r.Error, "is shutting down and stopped block on d1") || !strings.Contains(r.Error, "peek") {
		t.Fatalf("the interrupted task's error does not say the node stopped it: %s", r.Error)
	}
	w := waiter.wait()
	expect(t, w, broker.OutcomeRefused, broker.CodeOffline)
	for _, want := range []string{"is shutting down before your turn", "nothing ran", "Retry when the node is back"} {
		if !strings.Contains(w.Error, want) {
			t.Fatalf("the queued task's refusal does not say %q: %s", want, w.Error)
		}
	}
	if a := <-leaseWaiter; a.OK || a.Code != broker.CodeOffline || !strings.Contains(a.Error, "Retry when the node is back") {
		t.Fatalf("the queued lease request: %+v", a)
	}
	h.rec.mu.Lock()
	records := slices.Clone(h.rec.records)
	h.rec.mu.Unlock()
	if i := slices.IndexFunc(records, func(rec broker.TaskResult) bool { return rec.ID == "w" }); i < 0 || records[i].Outcome != broker.OutcomeRefused {
		t.Errorf("the queued task's record: %+v", records)
	}
	n := h.submit(broker.TaskRequest{ID: "n", Tool: "noop"}).wait()
	expect(t, n, broker.OutcomeRefused, broker.CodeOffline)
	if !strings.Contains(n.Error, "is shutting down") {
		t.Fatalf("the refusal does not say the node is shutting down: %s", n.Error)
	}
}

func TestRemovedDeviceFailsItsTask(t *testing.T) {
	h := newHarness(t, Config{})
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block"})
	h.root.Send(h.sched, RemoveDevice{Serial: "d1", Reason: "unplugged"})
	r := running.wait()
	expect(t, r, broker.OutcomeFailed, broker.CodeDisconnected)
	expect(t, h.submit(broker.TaskRequest{ID: "n", Tool: "noop"}).wait(), broker.OutcomeRefused, broker.CodeOffline)
	expect(t, h.submit(broker.TaskRequest{ID: "m", Serial: "nope", Tool: "noop"}).wait(), broker.OutcomeRefused, broker.CodeUnknownDevice)
}

func TestSetHealthShowsDriverReportedHealth(t *testing.T) {
	h := newHarness(t, Config{})
	h.root.Send(h.sched, SetHealth{Serial: "d1", Err: errors.New("WebDriverAgent does not answer")})
	r := h.submit(broker.TaskRequest{ID: "u", Tool: "noop"}).wait()
	expect(t, r, broker.OutcomeRefused, broker.CodeUnhealthy)
	if !strings.Contains(r.Error, "WebDriverAgent does not answer") {
		t.Fatalf("the refusal does not give the driver's reason: %s", r.Error)
	}
	h.root.Send(h.sched, SetHealth{Serial: "d1"})
	expect(t, h.submit(broker.TaskRequest{ID: "w", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	// A report for an offline device changes nothing.
	h.root.Send(h.sched, RemoveDevice{Serial: "d1", Reason: "unplugged"})
	h.root.Send(h.sched, SetHealth{Serial: "d1"})
	expect(t, h.submit(broker.TaskRequest{ID: "o", Tool: "noop"}).wait(), broker.OutcomeRefused, broker.CodeOffline)
}

// At a node's stop, its leases' revocations are what the operator asked for: one INFO line
// each, naming the node, not a WARN that reads "reason=is shutting down" with no node. A node
// declared lost still warns.
func TestLeasesRevokedAtShutdownAreInfoAndNameTheNode(t *testing.T) {
	for name, c := range map[string]struct {
		m     RevokeAll
		level string
	}{
		"shutdown": {RevokeAll{Reason: "is shutting down", Shutdown: true}, "level=INFO"},
		"lost":     {RevokeAll{Reason: "was declared lost"}, "level=WARN"},
	} {
		t.Run(name, func(t *testing.T) {
			var log logtest.Buffer
			h := newHarness(t, Config{Log: slog.New(slog.NewTextHandler(&log, nil))})
			if a := <-h.acquire("alice", 0); !a.OK {
				t.Fatalf("acquire: %+v", a)
			}
			h.root.Send(h.sched, c.m)
			for deadline := time.Now().Add(10 * time.Second); log.Line("lease revoked") == "" && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond) // polls the condition
			}
			line := log.Line("lease revoked")
			if !strings.Contains(line, c.level) || !strings.Contains(line, `reason="node n `+c.m.Reason+`"`) {
				t.Errorf("want %s naming node n: %s", c.level, line)
			}
			h.rec.mu.Lock()
			defer h.rec.mu.Unlock()
			i := slices.IndexFunc(h.rec.events, func(ev broker.Event) bool { return ev.Kind == "lease" && ev.What == "revoked" })
			if i < 0 || h.rec.events[i].Reason != "node n "+c.m.Reason {
				t.Errorf("the lease event: %+v", h.rec.events)
			}
		})
	}
}
