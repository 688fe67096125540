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

	"github.com/corral-farm/corral/broker"
)

// screenDevice is a fakeDevice whose screen can be looked at: Screen waits for shot (or, if
// stubborn, ignores cancellation until shot; if slow, returns after its cancellation only at
// shot), counting itself with the tasks so that an overlap of a capture and a task shows.
type screenDevice struct {
	*fakeDevice
	shot      chan struct{}
	stubborn  bool
	slow      bool          // set before the first capture
	looking   chan struct{} // told when a Screen starts
	cancelled chan struct{} // told when a Screen saw its context end
}

func (d *screenDevice) Screen(ctx context.Context, maxWidth int) (ScreenFrame, error) {
	d.mu.Lock()
	d.running++
	if d.running > 1 {
		d.overlap = true
	}
	d.mu.Unlock()
	defer func() { d.mu.Lock(); d.running--; d.mu.Unlock() }()
	d.looking <- struct{}{}
	if d.stubborn {
		<-d.shot
		return ScreenFrame{}, errors.New("too late")
	}
	select {
	case <-d.shot:
		return ScreenFrame{JPEG: []byte("jpeg"), Width: min(9, maxWidth), Height: 16}, nil
	case <-ctx.Done():
		d.cancelled <- struct{}{}
		if d.slow {
			<-d.shot // a loaded host's adb, answering late
		}
		return ScreenFrame{}, ctx.Err()
	}
}

func newScreenHarness(t *testing.T, stubborn bool) (*harness, *screenDevice) {
	return newScreenHarnessWithGrace(t, stubborn, 100*time.Millisecond)
}

// newScreenHarnessWithGrace is newScreenHarness on a node with that grace period.
func newScreenHarnessWithGrace(t *testing.T, stubborn bool, grace time.Duration) (*harness, *screenDevice) {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	t.Cleanup(sys.Shutdown)
	cfg := Config{Node: "n", Mirror: &recorder{}, Metrics: NewMetrics(prometheus.NewRegistry()), Grace: grace}
	props, started := NewNodeSupervisorProps(NewSchedulerProps(cfg), cfg.Metrics, "n")
	sys.Root.Spawn(props)
	dev := &screenDevice{fakeDevice: &fakeDevice{serial: "d1", release: make(chan struct{})}, shot: make(chan struct{}), stubborn: stubborn,
		looking: make(chan struct{}, 8), cancelled: make(chan struct{}, 8)}
	h := &harness{t: t, root: sys.Root, sched: <-started, dev: dev.fakeDevice, rec: cfg.Mirror.(*recorder)}
	t.Cleanup(func() { close(dev.release); close(dev.shot) })
	h.root.Send(h.sched, AddDevice{Device: dev})
	waitOnline(t, h)
	return h, dev
}

// waitOnline waits until the device takes tasks: a device whose driver was stuck is online
// again at its next health check after the driver returns (recheckMax apart at most).
func waitOnline(t *testing.T, h *harness) {
	t.Helper()
	waitOnlineWithin(t, h, recheckMax+10*time.Second)
}

// waitOnlineWithin waits until d1 takes tasks, for up to d.
func waitOnlineWithin(t *testing.T, h *harness, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for h.submit(broker.TaskRequest{ID: "probe", Serial: "d1", Tool: "noop"}).wait().Code == broker.CodeUnhealthy {
		if time.Now().After(deadline) {
			t.Fatalf("device not healthy within %s", d)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
}

type shot struct {
	frame ScreenFrame
	err   error
}

func (h *harness) capture(serial string) chan shot {
	return h.captureWithin(serial, 0)
}

// captureWithin asks for a capture with a timeout (DefaultCaptureTimeout if zero).
func (h *harness) captureWithin(serial string, timeout time.Duration) chan shot {
	p := make(chan shot, 1)
	h.root.Send(h.sched, CaptureScreen{Serial: serial, MaxWidth: 360, Timeout: timeout, Reply: func(f ScreenFrame, err error) { p <- shot{f, err} }})
	return p
}

func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s within 5s", what)
	}
	var zero T
	return zero
}

// A free device is looked at without a lease: the console's capture runs no task, moves no
// epoch, and the device stays free for anyone.
func TestCaptureOfAFreeDevice(t *testing.T) {
	h, dev := newScreenHarness(t, false)
	got := h.capture("d1")
	within(t, dev.looking, "capture")
	dev.shot <- struct{}{}
	s := within(t, got, "answer")
	if s.err != nil || s.frame.Width != 9 {
		t.Fatalf("capture: %v, %v", s.frame, s.err)
	}
	expect(t, h.submit(broker.TaskRequest{ID: "after", Tool: "noop", Holder: broker.Holder{Principal: "bob"}}).wait(), broker.OutcomeSucceeded, "")
	if s := within(t, h.capture("nope"), "answer"); s.err == nil || !strings.Contains(s.err.Error(), `no device "nope"`) {
		t.Fatalf("capture of an unknown device: %v", s.err)
	}
}

// While a task runs, a capture is skipped at once: the driver is never called alongside it.
func TestCaptureSkippedWhileATaskRuns(t *testing.T) {
	h, dev := newScreenHarness(t, false)
	running := h.submit(broker.TaskRequest{ID: "a", Tool: "block"})
	waitFor(t, "the task to run", dev.isRunning)
	if s := within(t, h.capture("d1"), "answer"); !errors.Is(s.err, ErrCaptureBusy) {
		t.Fatalf("capture during a task: %v, want ErrCaptureBusy", s.err)
	}
	dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	if dev.overlap {
		t.Fatal("a capture ran alongside a task")
	}
}

// A task that arrives during a capture cancels it and starts once the driver has returned:
// tasks first, never alongside.
func TestTaskCancelsACaptureAndWaitsForIt(t *testing.T) {
	h, dev := newScreenHarness(t, false)
	got := h.capture("d1")
	within(t, dev.looking, "capture")
	task := h.submit(broker.TaskRequest{ID: "t", Tool: "noop"})
	within(t, dev.cancelled, "the capture's cancellation")
	// Busy, as a capture during a task: the console tries again between tasks, and says nothing
	// (it logged every such cut as "no frame").
	if s := within(t, got, "answer"); !errors.Is(s.err, context.Canceled) || !errors.Is(s.err, ErrCaptureBusy) {
		t.Fatalf("a capture a task cut short: %v, want ErrCaptureBusy and context.Canceled", s.err)
	}
	expect(t, task.wait(), broker.OutcomeSucceeded, "")
	if dev.overlap {
		t.Fatal("a task ran alongside a capture")
	}
	// And the device is looked at again once free.
	again := h.capture("d1")
	within(t, dev.looking, "the next capture")
	dev.shot <- struct{}{}
	if s := within(t, again, "answer"); s.err != nil {
		t.Fatal(s.err)
	}
}

// A driver that ignores a capture's cancellation is stuck, as after a task: the task that
// waited for it fails, the device goes unhealthy, its actor restarts and it comes back.
func TestStuckCaptureMarksTheDeviceUnhealthy(t *testing.T) {
	h, dev := newScreenHarness(t, true)
	got := h.capture("d1")
	within(t, dev.looking, "capture")
	task := h.submit(broker.TaskRequest{ID: "t", Tool: "noop"})
	expect(t, task.wait(), broker.OutcomeFailed, broker.CodeUnhealthy)
	if s := within(t, got, "answer"); !errors.Is(s.err, errDriverStuck) {
		t.Fatalf("a stuck capture: %v", s.err)
	}
	dev.shot <- struct{}{} // the stuck Screen returns at last; its answer is ignored
	waitOnline(t, h)
}

// unhealthyShown counts the events that showed d1 unhealthy (a device starts so, until its
// first health check).
func (h *harness) unhealthyShown() int {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	n := 0
	for _, ev := range h.rec.events {
		if ev.Kind == "device" && ev.Serial == "d1" && ev.What == broker.StateUnhealthy {
			n++
		}
	}
	return n
}

// slowCapture starts a capture of d1 that times out at once and whose driver returns only at
// dev.shot, and waits for its answer: slow, not stuck.
func slowCapture(t *testing.T, h *harness, dev *screenDevice) {
	t.Helper()
	dev.slow = true
	got := h.captureWithin("d1", time.Millisecond)
	within(t, dev.looking, "capture")
	within(t, dev.cancelled, "the capture's timeout")
	if s := within(t, got, "answer"); !errors.Is(s.err, errCaptureSlow) {
		t.Fatalf("a capture past its timeout and the grace period, no task waiting: %v, want errCaptureSlow", s.err)
	}
}

// A capture whose driver answers late, with no task waiting, is slow, not stuck (a console's
// first look at a loaded host marked a healthy device unhealthy): its caller is answered after
// the grace period, the device stays busy for captures until the driver returns, and is never
// marked unhealthy.
func TestSlowCaptureWithNoTaskWaitingIsWaitedFor(t *testing.T) {
	h, dev := newScreenHarness(t, false)
	before := h.unhealthyShown()
	slowCapture(t, h, dev)
	if s := within(t, h.capture("d1"), "answer"); !errors.Is(s.err, ErrCaptureBusy) {
		t.Fatalf("a capture while a slow one runs: %v, want ErrCaptureBusy", s.err)
	}
	dev.shot <- struct{}{} // the driver returns at last
	captureOnceFree(t, h, dev)
	expect(t, h.submit(broker.TaskRequest{ID: "after", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	if h.unhealthyShown() != before {
		t.Fatal("a slow capture marked the device unhealthy")
	}
	if dev.overlap {
		t.Fatal("a capture ran alongside another or a task")
	}
}

// A slow capture that a task comes to wait for is stuck once the task has waited
// captureWaitGraces grace periods (its deadline is later): the task fails, the device goes
// unhealthy and comes back.
func TestSlowCaptureWithATaskWaitingMarksTheDeviceUnhealthy(t *testing.T) {
	h, dev := newScreenHarness(t, false)
	before := h.unhealthyShown()
	slowCapture(t, h, dev)
	arrived := time.Now()
	expect(t, h.submit(broker.TaskRequest{ID: "t", Tool: "noop"}).wait(), broker.OutcomeFailed, broker.CodeUnhealthy)
	if waited, bound := time.Since(arrived), captureWaitGraces*100*time.Millisecond; waited < bound {
		t.Fatalf("the task failed %s after it arrived, before its wait for the capture (%s) was over", waited, bound)
	}
	waitFor(t, "the device shown unhealthy", func() bool { return h.unhealthyShown() > before })
	dev.shot <- struct{}{} // the stuck Screen returns at last; its answer is ignored
	waitOnline(t, h)
}

// captureOnceFree waits until a capture of d1 is taken rather than skipped as busy, and lets
// it return a frame.
func captureOnceFree(t *testing.T, h *harness, dev *screenDevice) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := h.capture("d1")
		select {
		case <-dev.looking:
			dev.shot <- struct{}{}
			if s := within(t, got, "answer"); s.err != nil {
				t.Fatalf("a capture once the device is free: %v", s.err)
			}
			return
		case s := <-got:
			if !errors.Is(s.err, ErrCaptureBusy) || time.Now().After(deadline) {
				t.Fatalf("a capture once the slow one returned: %v, want a frame", s.err)
			}
			time.Sleep(2 * time.Millisecond) // polling a condition
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 5s: %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
