package test

import (
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A simulated iPhone takes a swipe's time, as a real one does: a swipe of D lasts at least D,
// and a task whose timeout_ms is shorter than its swipe ends timed_out at the deadline, not when
// the swipe would have, leaving the device free.
func TestIOSSwipeTimeout(t *testing.T) {
	f, sims := iosFarm(t, 1)
	c := f.Client("agent")
	serial := sims.Devices()[0].UDID()

	start := time.Now()
	farmtest.MustCall(t, c, "swipe", args("serial", serial, "direction", "up", "duration", 0.8))
	if took := time.Since(start); took < 800*time.Millisecond {
		t.Errorf("a swipe of 0.8 s answered after %s", took)
	}

	start = time.Now()
	res := farmtest.Call(t, c, "swipe", args("serial", serial, "direction", "up", "duration", 60, "timeout_ms", 500))
	took := time.Since(start)
	if !res.IsError {
		t.Fatalf("a 60 s swipe with timeout_ms 500 succeeded after %s: %s", took, farmtest.Text(res))
	}
	contains(t, farmtest.Text(res), "timed out")
	if took > freeWithin {
		t.Errorf("the swipe with timeout_ms 500 answered after %s; want within %s", took, freeWithin)
	}
	var rec struct {
		Status  string `json:"status"`
		Outcome string `json:"outcome"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_task_result", args("task_id", taskID(t, farmtest.Text(res)))), &rec)
	if rec.Outcome != broker.OutcomeTimedOut && rec.Status != broker.OutcomeTimedOut {
		t.Errorf("task record says %+v, want timed_out", rec)
	}
	farmtest.MustCall(t, c, "get_screen_size", args("serial", serial))
}
