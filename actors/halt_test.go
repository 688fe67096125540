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
}

func (d *haltable) Health(context.Context) error {
	if d.halted.Load() {
		return errors.New("halted")
	}
	return nil
}

// deviceEvent waits for a device event showing state, and returns it.
func (h *harness) deviceEvent(state string) broker.Event {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.rec.mu.Lock()
		evs := h.rec.events
		h.rec.mu.Unlock()
		for i := len(evs) - 1; i >= 0; i-- {
			if evs[i].Kind == "device" && evs[i].Serial == "d2" {
				if evs[i].What == state {
					return evs[i]
				}
				break
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("device d2 never shown %s", state)
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
	h.deviceEvent(broker.StateOnline)

	dev.halted.Store(true)
	h.root.Send(h.sched, SetHalted{Serial: "d2", Reason: "halted: resume with recover"})
	if ev := h.deviceEvent(broker.StateUnhealthy); ev.Reason != "halted: resume with recover" {
		t.Fatalf("halted device shown with reason %q", ev.Reason)
	}
	expect(t, h.submit(broker.TaskRequest{ID: "look", Serial: "d2", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	expect(t, h.submit(broker.TaskRequest{ID: "look2", Serial: "d2", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	h.deviceEvent(broker.StateUnhealthy) // still halted: its health check fails

	dev.halted.Store(false) // as the recovery does
	expect(t, h.submit(broker.TaskRequest{ID: "recover", Serial: "d2", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	h.deviceEvent(broker.StateOnline)
}
