package actors

import (
	"errors"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// A wait that ends on a device gone unhealthy meanwhile, with nobody holding it, says the
// device's state and why, and carries no holder: it showed an empty lease, read as "Held by
// until 0001-01-01T00:00:00Z (in -2562047h…)" (QA D4).
func TestWaitExpiredOnAnUnhealthyDeviceSaysItsState(t *testing.T) {
	h := newHarness(t, Config{})
	dev := &sickDevice{fakeDevice: &fakeDevice{serial: "d2", release: make(chan struct{})}}
	h.root.Send(h.sched, AddDevice{Device: dev})
	waitFor(t, "d2 online", func() bool {
		return h.submit(broker.TaskRequest{ID: "probe2", Serial: "d2", Tool: "noop"}).wait().Outcome == broker.OutcomeSucceeded
	})
	running := h.submit(broker.TaskRequest{ID: "sleep", Serial: "d2", Tool: "block", Holder: broker.Holder{Principal: "alice"}})
	waitRunning(t, dev.fakeDevice)
	queued := h.submit(broker.TaskRequest{ID: "tap", Serial: "d2", Tool: "noop", Holder: broker.Holder{Principal: "bob"}, WaitMS: 300})
	dev.sick.Store(true) // its checks fail from now on: it stays unhealthy
	h.root.Send(h.sched, SetHealth{Serial: "d2", Err: errors.New("simulator process exited")})
	h.abort(broker.AbortRequest{Serial: "d2", TaskID: "sleep", By: "alice"})
	running.wait()

	res := queued.wait()
	expect(t, res, broker.OutcomeRefused, broker.CodeWaitExpired)
	if res.Lease != nil {
		t.Errorf("the refusal shows a holder of a device nobody holds: %+v", *res.Lease)
	}
	if !strings.Contains(res.Error, "it is unhealthy (simulator process exited)") {
		t.Errorf("the refusal does not say the device's state and why: %q", res.Error)
	}
}
