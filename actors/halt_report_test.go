package actors

import (
	"sync"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// selfHalting is a haltable device that reports its halts itself (HaltReporter), as an arm
// rig's driver does when its controller raises an alarm.
type selfHalting struct {
	*haltable
	mu     sync.Mutex
	report func(string)
}

func (d *selfHalting) ReportHalt(report func(string)) {
	d.mu.Lock()
	d.report = report
	d.mu.Unlock()
}

// halt halts the device by itself (reason) or recovers it ("") and reports it.
func (d *selfHalting) halt(t *testing.T, reason string) {
	t.Helper()
	d.halted.Store(reason != "")
	d.mu.Lock()
	report := d.report
	d.mu.Unlock()
	if report == nil {
		t.Fatal("the scheduler never asked the device to report its halts")
	}
	report(reason)
}

// A device that halts by itself, with no task to notice it, shows unhealthy with its reason
// at once, takes tasks meanwhile, and is online once it reports its recovery.
func TestDeviceReportsItsHalts(t *testing.T) {
	h := newHarness(t, Config{})
	dev := &selfHalting{haltable: &haltable{fakeDevice: &fakeDevice{serial: "d2", release: make(chan struct{})}}}
	h.root.Send(h.sched, AddDevice{Device: dev})
	h.shown(broker.StateOnline)

	dev.halt(t, "in alarm: ALARM:1 Hard limit")
	if d := h.shown(broker.StateUnhealthy); d.Reason != "in alarm: ALARM:1 Hard limit" {
		t.Fatalf("device in alarm shown with reason %q", d.Reason)
	}
	expect(t, h.submit(broker.TaskRequest{ID: "look", Serial: "d2", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	dev.halt(t, "")
	h.shown(broker.StateOnline)
}
