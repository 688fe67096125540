package actors

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// sickDevice fails its health checks while sick, and counts them.
type sickDevice struct {
	*fakeDevice
	sick   atomic.Bool
	checks atomic.Int32
}

func (d *sickDevice) Health(context.Context) error {
	d.checks.Add(1)
	if d.sick.Load() {
		return errors.New("adb: device offline")
	}
	return nil
}

// An unhealthy device is checked again until a check passes, and then takes tasks: no node
// restart needed when a phone comes back.
func TestUnhealthyDeviceIsRechecked(t *testing.T) {
	h := newHarness(t, Config{})
	dev := &sickDevice{fakeDevice: &fakeDevice{serial: "d2", release: make(chan struct{})}}
	dev.sick.Store(true)
	h.root.Send(h.sched, AddDevice{Device: dev})
	waitFor(t, "a health check after the first", func() bool { return dev.checks.Load() >= 2 })
	r := h.submit(broker.TaskRequest{ID: "t1", Serial: "d2", Tool: "noop"}).wait()
	expect(t, r, broker.OutcomeRefused, broker.CodeUnhealthy)
	if !strings.Contains(r.Error, "adb: device offline") {
		t.Fatalf("the refusal does not say why: %s", r.Error)
	}
	dev.sick.Store(false)
	waitFor(t, "the device back online", func() bool {
		return h.submit(broker.TaskRequest{ID: "t2", Serial: "d2", Tool: "noop"}).wait().Outcome == broker.OutcomeSucceeded
	})
}
