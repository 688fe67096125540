package actors

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// abandonRig is a node with d1, whose captures return after their cancellation only at
// dev.shot (a loaded host's adb), its metrics and its log.
type abandonRig struct {
	*harness
	dev *screenDevice
	m   *Metrics
	log *logLines
}

func newAbandonRig(t *testing.T) abandonRig {
	dev, log := newScreenDevice(false), &logLines{}
	h, m := newLoggedCallsHarness(t, dev, dev, slog.New(log))
	return abandonRig{harness: h, dev: dev, m: m, log: log}
}

func (r abandonRig) abandoned() float64 {
	return sampleValue(r.m.capturesAbandoned.WithLabelValues("n"))
}

func (r abandonRig) restarts() float64 {
	return sampleValue(r.m.restarts.WithLabelValues("n", "device"))
}

// overdue starts a capture that times out at once and whose driver does not return, and waits
// until it is abandoned: answered slow, then overdue captureOverdueAfter later.
func (r abandonRig) overdue(t *testing.T) {
	t.Helper()
	slowCapture(t, r.harness, r.dev)
	deadline := time.Now().Add(captureOverdueAfter(time.Millisecond) + 10*time.Second)
	for r.abandoned() == 0 && r.restarts() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("an overdue capture was neither abandoned nor found stuck")
		}
		time.Sleep(10 * time.Millisecond) // polling a condition
	}
}

// An overdue capture that no task waits for is abandoned, counted and logged once, not taken
// for a hung driver: the device is not marked unhealthy, its actor not restarted (a slow frame
// on a loaded node restarted the actor, which only added a health check and a new capture to
// the load). No second capture starts beside it; once the driver returns, its frame is kept and
// the device is looked at and used as before.
func TestOverdueCaptureIsAbandonedWithoutARestart(t *testing.T) {
	r := newAbandonRig(t)
	before := r.unhealthyShown()
	r.overdue(t)
	if r.abandoned() != 1 || r.restarts() != 0 || r.unhealthyShown() != before {
		t.Fatalf("an overdue capture, no task waiting: abandoned %v, restarts %v, unhealthy shown %d more times; want 1, 0, 0",
			r.abandoned(), r.restarts(), r.unhealthyShown()-before)
	}
	for range 5 { // the console keeps asking: busy, never a second Screen
		if s := within(t, r.capture("d1"), "answer"); !errors.Is(s.err, ErrCaptureBusy) {
			t.Fatalf("a capture beside an abandoned one: %v, want ErrCaptureBusy", s.err)
		}
	}
	if n := r.log.count(msgCaptureAbandoned); n != 1 {
		t.Fatalf("the abandoned capture was logged %d times, want once", n)
	}
	r.dev.shot <- struct{}{} // the driver returns at last
	captureOnceFree(t, r.harness, r.dev)
	expect(t, r.submit(broker.TaskRequest{ID: "after", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	if r.restarts() != 0 || r.unhealthyShown() != before || r.abandoned() != 1 {
		t.Fatalf("after the abandoned capture returned: restarts %v, unhealthy shown %d more times, abandoned %v",
			r.restarts(), r.unhealthyShown()-before, r.abandoned())
	}
	if overlapped(r.dev.fakeDevice) {
		t.Fatal("a capture or a task ran beside the abandoned capture")
	}
}

// A task that comes for a device whose capture was abandoned waits for its driver, never runs
// beside it, and finds it hung once it has waited its bound (captureWaitGraces): the task
// fails unhealthy and the actor restarts; the device is back once the driver returns.
func TestAbandonedCaptureWithATaskWaitingIsHung(t *testing.T) {
	r := newAbandonRig(t)
	r.overdue(t)
	arrived := time.Now()
	expect(t, r.submit(broker.TaskRequest{ID: "t", Tool: "noop"}).wait(), broker.OutcomeFailed, broker.CodeUnhealthy)
	if waited, bound := time.Since(arrived), captureWaitGraces*100*time.Millisecond; waited < bound {
		t.Fatalf("the task failed %s after it arrived, before its wait for the capture (%s) was over", waited, bound)
	}
	waitFor(t, "the actor's restart", func() bool { return r.restarts() == 1 })
	if overlapped(r.dev.fakeDevice) {
		t.Fatal("a task ran beside the abandoned capture")
	}
	r.dev.shot <- struct{}{}
	waitOnline(t, r.harness)
}

// An abandoned capture still in its driver captureHungGraces grace periods later, no task
// having come, is hung: the device goes unhealthy, its actor restarts, and it is back once the
// driver returns.
func TestAbandonedCaptureStuckPastItsLongBoundIsHung(t *testing.T) {
	r := newAbandonRig(t)
	before, asked := r.unhealthyShown(), time.Now()
	r.overdue(t)
	if r.restarts() != 0 {
		t.Fatal("an overdue capture, no task waiting, restarted the actor")
	}
	deadline := time.Now().Add(captureHungGraces*100*time.Millisecond + 10*time.Second)
	for r.restarts() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("an abandoned capture stuck past its long bound did not restart the actor")
		}
		time.Sleep(10 * time.Millisecond) // polling a condition
	}
	// Its timers: captureOverdueAfter after the slow answer, then the long bound.
	if waited, bound := time.Since(asked), captureOverdueAfter(time.Millisecond)+captureHungGraces*100*time.Millisecond; waited < bound {
		t.Fatalf("found hung %s after the capture was asked for, before its bounds (%s)", waited, bound)
	}
	waitFor(t, "the device shown unhealthy", func() bool { return r.unhealthyShown() > before })
	r.dev.shot <- struct{}{}
	waitOnline(t, r.harness)
}

// overlapped says whether two calls were in d's driver at once.
func overlapped(d *fakeDevice) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.overlap
}
