package actors

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// countedDevice is a screenDevice whose health checks and "hang" tasks count with its
// captures and tasks, so that two calls in its driver at once show (overlap); "hang" tasks
// ignore cancellation until hang closes.
type countedDevice struct {
	*screenDevice
	hang   chan struct{}
	checks atomic.Int32
}

// call counts a driver call from now; the func it returns, its end.
func (d *countedDevice) call() (end func()) {
	d.mu.Lock()
	d.running++
	if d.running > 1 {
		d.overlap = true
	}
	d.mu.Unlock()
	return func() { d.mu.Lock(); d.running--; d.mu.Unlock() }
}

func (d *countedDevice) Health(context.Context) error {
	defer d.call()()
	d.checks.Add(1)
	return nil
}

func (d *countedDevice) Execute(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) broker.TaskResult {
	if req.Tool != "hang" {
		return d.screenDevice.Execute(ctx, req, progress) // counts itself
	}
	defer d.call()()
	<-d.hang
	return broker.TaskResult{Outcome: broker.OutcomeSucceeded}
}

func newCountedHarness(t *testing.T, stubborn bool) (*harness, *countedDevice) {
	dev := &countedDevice{screenDevice: newScreenDevice(stubborn), hang: make(chan struct{})}
	h, _ := newCallsHarness(t, dev, dev.screenDevice)
	return h, dev
}

// overlapped says whether two calls were in d's driver at once.
func overlapped(d *fakeDevice) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.overlap
}

// reasonShown says whether d1 is shown unhealthy for a reason that contains part.
func (h *harness) reasonShown(part string) bool {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	e := h.rec.devices["d1"]
	return e.State == broker.StateUnhealthy && strings.Contains(e.Reason, part)
}

// checkWaitsForTheDriver waits until the restarted actor's health check has given up waiting
// for the abandoned call (what), and checks that it never called the driver beside it; then
// lets the call return (free) and checks that the device is online again, its check having
// run alone.
func checkWaitsForTheDriver(t *testing.T, h *harness, dev *countedDevice, what string, free func()) {
	t.Helper()
	checks := dev.checks.Load()
	deadline := time.Now().Add(20 * time.Second)
	for !h.reasonShown("has not returned from "+what) && !overlapped(dev.fakeDevice) {
		if time.Now().After(deadline) {
			t.Fatalf("the restarted actor's health check neither waited for the abandoned %s nor ran beside it", what)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
	if overlapped(dev.fakeDevice) || dev.checks.Load() != checks {
		t.Fatalf("a health check ran beside the abandoned %s (overlap %v, checks %d then %d)", what, overlapped(dev.fakeDevice), checks, dev.checks.Load())
	}
	if r := h.submit(broker.TaskRequest{ID: "meanwhile", Tool: "noop"}).wait(); r.Code != broker.CodeUnhealthy {
		t.Fatalf("a task while the abandoned %s is in the driver: %s/%s, want refused unhealthy", what, r.Outcome, r.Code)
	}
	free()
	waitOnline(t, h)
	if overlapped(dev.fakeDevice) || dev.checks.Load() == checks {
		t.Fatalf("after the abandoned %s returned: overlap %v, checks %d then %d", what, overlapped(dev.fakeDevice), checks, dev.checks.Load())
	}
}

// After a capture found stuck restarts the device's actor, the new incarnation's health check
// waits for the abandoned capture's driver call instead of running beside it (a driver runs
// one call at a time): within its bound the device stays unhealthy, and once the driver
// returns it is online again.
func TestHealthCheckWaitsForAnAbandonedCapture(t *testing.T) {
	h, dev := newCountedHarness(t, true)
	got := h.capture("d1")
	within(t, dev.looking, "capture")
	expect(t, h.submit(broker.TaskRequest{ID: "t", Tool: "noop"}).wait(), broker.OutcomeFailed, broker.CodeUnhealthy)
	within(t, got, "answer")
	checkWaitsForTheDriver(t, h, dev, "a console capture", func() { dev.shot <- struct{}{} })
}

// The same after a task whose driver ignored its deadline: the restarted actor's check waits
// for the abandoned task's call.
func TestHealthCheckWaitsForAnAbandonedTask(t *testing.T) {
	h, dev := newCountedHarness(t, false)
	expect(t, h.submit(broker.TaskRequest{ID: "hung", Tool: "hang", TimeoutMS: 50}).wait(), broker.OutcomeTimedOut, "")
	checkWaitsForTheDriver(t, h, dev, "a task", func() { close(dev.hang) })
}
