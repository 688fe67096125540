package actors

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// A task that comes as its node may just have been declared lost (Config.MayHaveBeenLost: it
// may have waited in NATS while its caller was told the node was lost) is asked about before
// it runs, though it would start at once. Its caller gone, it is refused with caller_gone,
// saying why, its record showing no start; its caller there, it runs. A task from a gateway
// that gave no probe runs, as one that waited does. Once the node is past its silence, a task
// starts unasked.
func TestTaskAfterTheNodesSilenceAsksItsCaller(t *testing.T) {
	var asked atomic.Int32
	var silent atomic.Bool
	h := newHarness(t, Config{MayHaveBeenLost: silent.Load, CallerListens: func(_ context.Context, req broker.TaskRequest) bool {
		asked.Add(1)
		return req.Probe != "gone"
	}})
	silent.Store(true)
	res := h.submit(broker.TaskRequest{ID: "gone", Tool: "noop", Probe: "gone"}).wait()
	expect(t, res, broker.OutcomeRefused, broker.CodeCallerGone)
	if !strings.Contains(res.Error, "node n was silent") || !strings.Contains(res.Error, "noop did not run") {
		t.Fatalf("the refusal does not say the node was silent and nothing ran: %s", res.Error)
	}
	if !res.Started.IsZero() {
		t.Fatalf("the record of a task that did not run shows a start: %s", res.Started)
	}
	expect(t, h.submit(broker.TaskRequest{ID: "live", Tool: "noop", Probe: "live"}).wait(), broker.OutcomeSucceeded, "")
	expect(t, h.submit(broker.TaskRequest{ID: "old", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "") // an older gateway's
	if n := asked.Load(); n != 2 {
		t.Fatalf("callers asked %d times after the silence, want 2 (each task that gave a probe, once)", n)
	}

	silent.Store(false)
	expect(t, h.submit(broker.TaskRequest{ID: "later", Tool: "noop", Probe: "gone"}).wait(), broker.OutcomeSucceeded, "")
	if n := asked.Load(); n != 2 {
		t.Fatalf("a task with no silence before it asked its caller (%d questions in all)", n)
	}
}
