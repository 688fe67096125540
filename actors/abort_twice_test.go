package actors

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A second abort of a task the first one already ended, its driver still returning, aborts
// nothing and is answered so: both were answered with the task among those they aborted, and
// two abort_task calls both said "Task aborted" of one task. The task ends aborted by the first.
func TestSecondAbortOfAnEndingTaskAbortsNothing(t *testing.T) {
	h, d := newSlowToStopHarness(t)

	running := h.submit(broker.TaskRequest{ID: "slow", Serial: "p1", Tool: "late", TimeoutMS: 60_000})
	// The first abort, once the task runs (an abort before it starts finds nothing running).
	var first broker.AbortAnswer
	for deadline := time.Now().Add(10 * time.Second); len(first.Aborted) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the task never ran to be aborted")
		}
		first = h.abort(broker.AbortRequest{Serial: "p1", By: "alice (claude)"})
	}
	select {
	case <-d.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the abort never ended the task's context")
	}
	second := h.abort(broker.AbortRequest{Serial: "p1", By: "bob (claude)"})
	byID := h.abort(broker.AbortRequest{TaskID: "slow", By: "bob (claude)"})
	close(d.stopped)
	if !slices.Equal(first.Aborted, []string{"slow"}) {
		t.Errorf("the first abort answered aborted %v, want [slow]", first.Aborted)
	}
	for what, ans := range map[string]broker.AbortAnswer{"by serial": second, "by task id": byID} {
		if len(ans.Aborted) != 0 || len(ans.TimedOut) != 0 {
			t.Errorf("a second abort %s answered aborted %v, timed out %v; want nothing: the first aborted it", what, ans.Aborted, ans.TimedOut)
		}
	}
	res := running.wait()
	for what, r := range map[string]broker.TaskResult{"answer": res, "record": h.record("slow")} {
		if r.Outcome != broker.OutcomeAborted || !strings.Contains(r.Error, "alice") || strings.Contains(r.Error, "bob") {
			t.Errorf("the task's %s is %s (%s), want aborted by alice", what, r.Outcome, r.Error)
		}
	}
}
