package actors

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/corral-farm/corral/broker"
)

// A capture found stuck restarts the device's actor, and its driver call is abandoned, not
// forgotten: while it runs, the console's next captures of the device are refused and
// counted, none starts beside it (on a loaded node 12 watched phones had ~40 screenshots
// drawing at once, a new one after each restart), and tasks on the device and its neighbours
// are answered meanwhile. Once the driver returns, the device is looked at again.
func TestStuckCaptureIsNotJoinedByAnother(t *testing.T) {
	h, dev, m := newStubbornScreenHarness(t)
	d2 := &fakeDevice{serial: "d2", release: make(chan struct{})}
	t.Cleanup(func() { close(d2.release) })
	h.root.Send(h.sched, AddDevice{Device: d2})
	running := func() float64 { return testutil.ToFloat64(m.capturesRunning.WithLabelValues("n")) }
	refused := func() float64 { return testutil.ToFloat64(m.capturesRefused.WithLabelValues("n")) }

	got := h.capture("d1")
	within(t, dev.looking, "capture")
	// A task cancels the capture, whose driver ignores it: stuck, the actor restarts.
	expect(t, h.submit(broker.TaskRequest{ID: "t", Tool: "noop"}).wait(), broker.OutcomeFailed, broker.CodeUnhealthy)
	if s := within(t, got, "answer"); !errors.Is(s.err, errDriverStuck) {
		t.Fatalf("a stuck capture: %v", s.err)
	}

	// The console keeps asking, as its loop does: refused once the device is back online,
	// never a second Screen call.
	deadline := time.Now().Add(10 * time.Second)
	for asked := 0; asked < 20; {
		var s shot
		select {
		case <-dev.looking:
			t.Fatal("a capture started while the stuck one's driver call still ran")
		case s = <-h.capture("d1"):
		case <-time.After(5 * time.Second):
			t.Fatal("no answer to a capture within 5s")
		}
		switch {
		case errors.Is(s.err, errCaptureRunning):
			asked++
		case s.err != nil && strings.Contains(s.err.Error(), "until it is online") && time.Now().Before(deadline):
			time.Sleep(2 * time.Millisecond) // polling until the restarted actor's check passes
		default:
			t.Fatalf("a capture while the stuck one runs: %v, want errCaptureRunning", s.err)
		}
	}
	if running() != 1 || refused() < 20 {
		t.Fatalf("captures running %v, refused %v; want 1 and at least 20", running(), refused())
	}

	// Tool calls are answered meanwhile: on the device, and beside it.
	expect(t, h.submit(broker.TaskRequest{ID: "on-d1", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	expect(t, h.submit(broker.TaskRequest{ID: "on-d2", Serial: "d2", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	if a := within(t, h.acquire("bob", 0), "acquire"); a.Lease == nil {
		t.Fatalf("acquire while a capture is stuck: %s %s", a.Code, a.Error)
	}

	dev.shot <- struct{}{} // the stuck Screen returns at last
	waitFor(t, "no capture running", func() bool { return running() == 0 })
	dev.stubborn = false // after its last read: the driver returned
	captureOnceFree(t, h, dev)
	if running() != 0 {
		t.Fatalf("captures running %v after the last returned", running())
	}
}

// A task whose driver ignored its deadline is abandoned at the actor's restart, not
// forgotten: until it returns no capture of the device starts beside it, and the device takes
// tasks meanwhile.
func TestAbandonedTaskIsNotJoinedByACapture(t *testing.T) {
	dev := newScreenDevice(false)
	hung := &hangingDevice{screenDevice: dev, hang: make(chan struct{})}
	h, m := newCallsHarness(t, hung, dev)
	refused := func() float64 { return testutil.ToFloat64(m.capturesRefused.WithLabelValues("n")) }

	// The driver ignores the deadline: stuck, the device goes unhealthy, its actor restarts.
	r := h.submit(broker.TaskRequest{ID: "hung", Tool: "hang", TimeoutMS: 50}).wait()
	if expect(t, r, broker.OutcomeTimedOut, ""); !strings.Contains(r.Error, "did not stop") {
		t.Fatalf("a task whose driver ignored its deadline: %q", r.Error)
	}
	deadline := time.Now().Add(10 * time.Second)
	for asked := 0; asked < 10; {
		var s shot
		select {
		case <-dev.looking:
			t.Fatal("a capture started while an abandoned task's driver call still ran")
		case s = <-h.capture("d1"):
		case <-time.After(5 * time.Second):
			t.Fatal("no answer to a capture within 5s")
		}
		switch {
		case errors.Is(s.err, errTaskStillRunning) && errors.Is(s.err, ErrCaptureBusy):
			asked++
		case s.err != nil && strings.Contains(s.err.Error(), "until it is online") && time.Now().Before(deadline):
			time.Sleep(2 * time.Millisecond) // polling until the restarted actor's check passes
		default:
			t.Fatalf("a capture while an abandoned task runs: %v, want errTaskStillRunning", s.err)
		}
	}
	if refused() < 10 {
		t.Fatalf("captures refused %v, want at least 10", refused())
	}
	expect(t, h.submit(broker.TaskRequest{ID: "next", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")

	close(hung.hang) // the driver returns at last
	captureOnceFree(t, h, dev)
}

// A device's driver calls are counted across its actor's incarnations: while one is in the
// driver, a capture is refused and counted (errCaptureRunning, errTaskStillRunning); once
// it returns, a capture starts.
func TestScreenCallsAdmitOneCallAtATime(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	c := newScreenCalls(m, "n", slog.New(slog.DiscardHandler))
	if err := c.start(); err != nil {
		t.Fatal(err)
	}
	if err := c.start(); !errors.Is(err, errCaptureRunning) {
		t.Fatalf("a second capture: %v, want errCaptureRunning", err)
	}
	end := c.task() // an abandoned task, with the capture
	c.end()
	if err := c.start(); !errors.Is(err, errTaskStillRunning) {
		t.Fatalf("a capture beside a task: %v, want errTaskStillRunning", err)
	}
	end()
	if err := c.start(); err != nil {
		t.Fatalf("a capture once the driver is free: %v", err)
	}
	if n := testutil.ToFloat64(m.capturesRefused.WithLabelValues("n")); n != 2 {
		t.Fatalf("captures refused %v, want 2", n)
	}
}

// hangingDevice is a screenDevice whose "hang" tasks ignore cancellation until hang closes.
type hangingDevice struct {
	*screenDevice
	hang chan struct{}
}

func (d *hangingDevice) Execute(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) broker.TaskResult {
	if req.Tool == "hang" {
		<-d.hang
		return broker.TaskResult{Outcome: broker.OutcomeSucceeded}
	}
	return d.screenDevice.Execute(ctx, req, progress)
}

// newScreenDevice is the screenDevice d1; stubborn, it ignores a capture's cancellation.
func newScreenDevice(stubborn bool) *screenDevice {
	return &screenDevice{fakeDevice: &fakeDevice{serial: "d1", release: make(chan struct{})}, shot: make(chan struct{}), stubborn: stubborn,
		looking: make(chan struct{}, 8), cancelled: make(chan struct{}, 8)}
}

// newStubbornScreenHarness is newScreenHarness with a driver that ignores a capture's
// cancellation, and the node's metrics.
func newStubbornScreenHarness(t *testing.T) (*harness, *screenDevice, *Metrics) {
	dev := newScreenDevice(true)
	h, m := newCallsHarness(t, dev, dev)
	return h, dev, m
}

// newCallsHarness is a node with a grace period of 100 ms and one device, d1 (dev, sd or over
// it), online; and the node's metrics.
func newCallsHarness(t *testing.T, dev Device, sd *screenDevice) (*harness, *Metrics) {
	return newLoggedCallsHarness(t, dev, sd, slog.New(slog.DiscardHandler))
}

// newLoggedCallsHarness is newCallsHarness whose scheduler logs to log.
func newLoggedCallsHarness(t *testing.T, dev Device, sd *screenDevice, log *slog.Logger) (*harness, *Metrics) {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	t.Cleanup(sys.Shutdown)
	cfg := Config{Node: "n", Mirror: &recorder{}, Metrics: NewMetrics(prometheus.NewRegistry()), Grace: 100 * time.Millisecond, Log: log}
	props, started := NewNodeSupervisorProps(NewSchedulerProps(cfg), cfg.Metrics, "n")
	sys.Root.Spawn(props)
	h := &harness{t: t, root: sys.Root, sched: <-started, dev: sd.fakeDevice, rec: cfg.Mirror.(*recorder)}
	t.Cleanup(func() { close(sd.release); close(sd.shot) })
	h.root.Send(h.sched, AddDevice{Device: dev})
	waitOnline(t, h)
	return h, cfg.Metrics
}
