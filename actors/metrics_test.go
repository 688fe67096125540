package actors

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/corral-farm/corral/broker"
)

// newMeteredHarness is newHarness with the metrics at hand.
func newMeteredHarness(t *testing.T, cfg Config) (*harness, *Metrics) {
	t.Helper()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	t.Cleanup(sys.Shutdown)
	m := NewMetrics(prometheus.NewRegistry())
	m.KnowNode("n")
	rec := &recorder{}
	cfg.Node, cfg.Mirror, cfg.Metrics = "n", rec, m
	props, started := NewNodeSupervisorProps(NewSchedulerProps(cfg), m, "n")
	sys.Root.Spawn(props)
	h := &harness{t: t, root: sys.Root, sched: <-started, dev: &fakeDevice{serial: "d1", release: make(chan struct{})}, rec: rec}
	t.Cleanup(func() { close(h.dev.release) })
	h.root.Send(h.sched, AddDevice{Device: h.dev})
	online := func() bool {
		return statesOfD1(m)[broker.StateOnline] == 1
	}
	pollUntil(t, online, "device d1 never showed online")
	return h, m
}

// pollUntil polls cond until it holds, failing the test with msg after 5 s.
func pollUntil(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// The per-device series exist from the start (zeros), follow the device's state, its queue,
// its tasks and busy time; a hand-over to a waiter is timed; aborts are counted by cause.
func TestDeviceMetricsAbortsAndHandover(t *testing.T) {
	h, m := newMeteredHarness(t, Config{})
	state := func(s string) float64 { return statesOfD1(m)[s] }
	if got := statesOfD1(m); len(got) != 1 || got[broker.StateOnline] != 1 {
		t.Fatalf("corral_device_state of d1: %v, want one series, online 1", got)
	}
	for _, o := range broker.Outcomes {
		if v := sampleValue(m.deviceTasks.WithLabelValues("n", "d1", o)); v != 0 {
			t.Fatalf("corral_device_tasks_total{outcome=%q} = %v before any task", o, v)
		}
	}

	running := h.submit(broker.TaskRequest{ID: "a", Tool: "block", Holder: broker.Holder{Principal: "alice"}})
	pollUntil(t, func() bool { return state(broker.StateBusy) == 1 && len(statesOfD1(m)) == 1 }, "device never showed busy (alone)")
	waiting := h.submit(broker.TaskRequest{ID: "b", Tool: "noop", WaitMS: 5000})
	pollUntil(t, func() bool { return sampleValue(m.deviceQueue.WithLabelValues("n", "d1")) == 1 }, "queued task not counted")
	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	expect(t, waiting.wait(), broker.OutcomeSucceeded, "")
	// The scheduler counts a task after answering it; it handles messages in order, so its
	// answer to this one says it has.
	h.leasesNow()
	if v := sampleValue(m.deviceQueue.WithLabelValues("n", "d1")); v != 0 {
		t.Fatalf("device queue depth %v after the queue emptied", v)
	}
	if c := histogramCount(t, m.handover); c != 1 {
		t.Fatalf("%d hand-overs observed, want 1 (a then b)", c)
	}
	if v := sampleValue(m.deviceTasks.WithLabelValues("n", "d1", broker.OutcomeSucceeded)); v != 2 {
		t.Fatalf("succeeded tasks of d1: %v, want 2", v)
	}
	if v := sampleValue(m.deviceBusy.WithLabelValues("n", "d1")); v <= 0 {
		t.Fatalf("busy seconds of d1: %v after two tasks", v)
	}

	// Aborts by cause: the caller went away, then an abort_task of a running and a queued task.
	running = h.submit(broker.TaskRequest{ID: "c", Tool: "block"})
	pollUntil(t, func() bool { return state(broker.StateBusy) == 1 }, "c never ran")
	h.abort(broker.AbortRequest{TaskID: "c", By: clientCancelled})
	if r := running.wait(); r.Outcome != broker.OutcomeAborted || !strings.HasPrefix(r.Error, "aborted: its caller stopped waiting") {
		t.Fatalf("a task whose caller went away: %s (%s), want aborted, saying its caller stopped waiting", r.Outcome, r.Error)
	}
	l := (<-h.acquire("alice", 0)).Lease
	running = h.submit(broker.TaskRequest{ID: "d", Tool: "block", Lease: l.Handle})
	queued := h.submit(broker.TaskRequest{ID: "e", Tool: "noop", Lease: l.Handle})
	if ans := h.abort(broker.AbortRequest{Lease: l.Handle, All: true, By: "alice"}); len(ans.Aborted) != 2 {
		t.Fatalf("aborted %v, want d and e", ans.Aborted)
	}
	expect(t, running.wait(), broker.OutcomeAborted, "")
	expect(t, queued.wait(), broker.OutcomeAborted, "")
	h.leasesNow() // d, aborted while it ran, is counted after its answer
	for cause, want := range map[string]float64{"client_cancelled": 1, "abort_task": 2, "lease_max": 0, "revoked": 0} {
		if v := sampleValue(m.aborts.WithLabelValues("n", cause)); v != want {
			t.Errorf("corral_aborts_total{cause=%q} = %v, want %v", cause, v, want)
		}
	}
	if v := sampleValue(m.deviceTasks.WithLabelValues("n", "d1", broker.OutcomeAborted)); v != 3 {
		t.Fatalf("aborted tasks of d1: %v, want 3", v)
	}

	// A task for a serial nobody has creates no per-device series.
	expect(t, h.submit(broker.TaskRequest{ID: "x", Serial: "nope", Tool: "noop"}).wait(), broker.OutcomeRefused, broker.CodeUnknownDevice)
	if n := seriesCount(m.deviceTasks); n != len(broker.Outcomes) {
		t.Fatalf("%d per-device task series, want %d (d1's only)", n, len(broker.Outcomes))
	}
}

// A device's queue takes MaxQueue waiters: one more task or lease request is refused at once
// with queue_full and counted, and the queue takes waiters again once it has room.
func TestFullQueueRefuses(t *testing.T) {
	h, m := newMeteredHarness(t, Config{MaxQueue: 2})
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block"})
	pollUntil(t, h.dev.isRunning, "task r never started")
	queued := []pending{
		h.submit(broker.TaskRequest{ID: "q1", Tool: "noop", WaitMS: 5000}),
		h.submit(broker.TaskRequest{ID: "q2", Tool: "noop", WaitMS: 5000}),
	}
	pollUntil(t, func() bool { return sampleValue(m.deviceQueue.WithLabelValues("n", "d1")) == 2 }, "q1 and q2 not queued")
	res := h.submit(broker.TaskRequest{ID: "q3", Tool: "noop", WaitMS: 5000}).wait()
	expect(t, res, broker.OutcomeRefused, broker.CodeQueueFull)
	if !strings.Contains(res.Error, "device d1 has 2 tasks and lease requests waiting") || !strings.Contains(res.Error, "--max-queue") {
		t.Errorf("refusal %q does not say what is full and which setting", res.Error)
	}
	if a := <-h.acquire("bob", 5000); a.OK || a.Code != broker.CodeQueueFull {
		t.Fatalf("acquire on a full queue: %+v", a)
	}
	if v := sampleValue(m.queueFulls.WithLabelValues("n")); v != 2 {
		t.Fatalf("corral_queue_full_total = %v, want 2", v)
	}
	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	for _, q := range queued {
		expect(t, q.wait(), broker.OutcomeSucceeded, "")
	}
	expect(t, h.submit(broker.TaskRequest{ID: "n", Tool: "noop", WaitMS: 5000}).wait(), broker.OutcomeSucceeded, "")
}

// A lease that reaches its maximum aborts its holder's running task, counted as lease_max.
func TestLeaseMaxAbortIsCounted(t *testing.T) {
	h, m := newMeteredHarness(t, Config{LeaseMax: 100 * time.Millisecond})
	l := (<-h.acquire("alice", 0)).Lease
	expect(t, h.submit(broker.TaskRequest{ID: "r", Tool: "block", Lease: l.Handle}).wait(), broker.OutcomeAborted, "")
	if v := sampleValue(m.aborts.WithLabelValues("n", "lease_max")); v != 1 {
		t.Fatalf("corral_aborts_total{cause=\"lease_max\"} = %v, want 1", v)
	}
}

// An operator's forced release aborts the holder's running task, counted as revoked.
func TestForcedReleaseAbortIsCounted(t *testing.T) {
	h, m := newMeteredHarness(t, Config{})
	l := (<-h.acquire("alice", 0)).Lease
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block", Lease: l.Handle})
	pollUntil(t, func() bool {
		return statesOfD1(m)[broker.StateBusy] == 1
	}, "r never ran")
	p := make(chan broker.LeaseAnswer, 1)
	h.root.Send(h.sched, ReleaseLease{Req: broker.ReleaseRequest{Serial: "d1", Force: true, By: "operator"}, Reply: func(a broker.LeaseAnswer) { p <- a }})
	if a := <-p; !a.OK {
		t.Fatalf("forced release: %+v", a)
	}
	expect(t, running.wait(), broker.OutcomeAborted, "")
	if v := sampleValue(m.aborts.WithLabelValues("n", "revoked")); v != 1 {
		t.Fatalf("corral_aborts_total{cause=\"revoked\"} = %v, want 1", v)
	}
}

func histogramCount(t *testing.T, h prometheus.Histogram) uint64 {
	t.Helper()
	var d dto.Metric
	if err := h.Write(&d); err != nil {
		t.Fatal(err)
	}
	return d.GetHistogram().GetSampleCount()
}

// sampleValue reads the one sample of a gauge or counter.
func sampleValue(c prometheus.Metric) float64 {
	var d dto.Metric
	if err := c.Write(&d); err != nil {
		panic(err)
	}
	if d.Gauge != nil {
		return d.GetGauge().GetValue()
	}
	return d.GetCounter().GetValue()
}

// statesOfD1 returns d1's corral_device_state series by state.
func statesOfD1(m *Metrics) map[string]float64 {
	ch := make(chan prometheus.Metric)
	go func() { m.deviceState.Collect(ch); close(ch) }()
	out := map[string]float64{}
	for metric := range ch {
		var d dto.Metric
		if err := metric.Write(&d); err != nil {
			panic(err)
		}
		labels := map[string]string{}
		for _, l := range d.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["serial"] == "d1" {
			out[labels["state"]] = d.GetGauge().GetValue()
		}
	}
	return out
}

// seriesCount counts the series a collector has.
func seriesCount(c prometheus.Collector) int {
	ch := make(chan prometheus.Metric)
	go func() { c.Collect(ch); close(ch) }()
	n := 0
	for range ch {
		n++
	}
	return n
}
