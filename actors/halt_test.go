package actors

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// haltable is a fakeDevice whose health check fails while it is halted.
type haltable struct {
	*fakeDevice
	halted atomic.Bool
	failed atomic.Int32 // health checks that found it halted
}

func (d *haltable) Health(context.Context) error {
	if d.halted.Load() {
		d.failed.Add(1)
		return errors.New("halted")
	}
	return nil
}

// shown waits until device d2 is shown in state, and returns its entry.
func (h *harness) shown(state string) broker.DeviceEntry {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.rec.mu.Lock()
		d := h.rec.devices["d2"]
		h.rec.mu.Unlock()
		if d.State == state {
			return d
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("device d2 never shown %s; it is shown %s (%s)", state, d.State, d.Reason)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A halted device shows unhealthy with the halt's reason yet still runs tasks (the recovery
// must get through); a task that succeeds while it is still halted changes nothing, and the
// first one after which its health check passes shows it online again.
func TestHaltedDeviceShowsUnhealthyAndTakesTasks(t *testing.T) {
	h := newHarness(t, Config{})
	dev := &haltable{fakeDevice: &fakeDevice{serial: "d2", release: make(chan struct{})}}
	h.root.Send(h.sched, AddDevice{Device: dev})
	h.shown(broker.StateOnline)

	dev.halted.Store(true)
	h.root.Send(h.sched, SetHalted{Serial: "d2", Reason: "halted: resume with recover"})
	if d := h.shown(broker.StateUnhealthy); d.Reason != "halted: resume with recover" {
		t.Fatalf("halted device shown with reason %q", d.Reason)
	}
	expect(t, h.submit(broker.TaskRequest{ID: "look", Serial: "d2", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	expect(t, h.submit(broker.TaskRequest{ID: "look2", Serial: "d2", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	for deadline := time.Now().Add(5 * time.Second); dev.failed.Load() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no health check after the tasks on the halted device")
		}
	}
	h.shown(broker.StateUnhealthy) // still halted: its health checks failed

	dev.halted.Store(false) // as the recovery does
	expect(t, h.submit(broker.TaskRequest{ID: "recover", Serial: "d2", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	h.shown(broker.StateOnline)
}

// A halt that ends while a task runs shows the device busy, and says so on the event stream:
// leaving unhealthy is news even into busy, which task flips otherwise do not announce.
func TestHaltEndingDuringATaskIsAnEvent(t *testing.T) {
	h := newHarness(t, Config{})
	h.root.Send(h.sched, SetHalted{Serial: "d1", Reason: "halted"})
	running := h.submit(broker.TaskRequest{ID: "long", Tool: "block"})
	for deadline := time.Now().Add(5 * time.Second); !h.dev.isRunning(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the task never started")
		}
	}
	h.root.Send(h.sched, SetHalted{Serial: "d1"})
	deadline := time.Now().Add(5 * time.Second)
	for !h.sawEvent("d1", broker.StateBusy) {
		if time.Now().After(deadline) {
			t.Fatal("no busy event when the halt ended during a task")
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
}

// sawEvent says whether a device event showed serial in state.
func (h *harness) sawEvent(serial, state string) bool {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	for _, ev := range h.rec.events {
		if ev.Kind == "device" && ev.Serial == serial && ev.What == state {
			return true
		}
	}
	return false
}
