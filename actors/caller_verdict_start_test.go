package actors

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// The question asked before a task runs carries its pending start (PendingStartOf): when the
// scheduler gave it to its device, and how to end it as its node's loss. Ended so by the node
// as it asks (it heard a verdict that revokes nothing), the task does not run, though its
// caller says it still waits: refused node_lost, no start. A question about a running task
// carries none: a loss heard then is the revoke's to end.
func TestQuestionBeforeATaskRunsCarriesItsPendingStart(t *testing.T) {
	type question struct {
		id      string
		pending PendingStart
		carried bool
	}
	questions := make(chan question, 16)
	h := newHarness(t, Config{MayHaveBeenLost: func() bool { return true }, CallerCheckEvery: 20 * time.Millisecond,
		CallerListens: func(ctx context.Context, req broker.TaskRequest) bool {
			p, ok := PendingStartOf(ctx)
			questions <- question{req.ID, p, ok}
			if ok && req.Probe == "lost" {
				p.EndLost() // the node heard of its loss as it asked
			}
			return true
		}})

	given := time.Now()
	res := h.submit(broker.TaskRequest{ID: "lost", Tool: "noop", Probe: "lost"}).wait()
	expect(t, res, broker.OutcomeRefused, broker.CodeNodeLost)
	if !strings.Contains(res.Error, "was declared lost by the farm as this task was about to start") || !strings.Contains(res.Error, "noop did not run") {
		t.Fatalf("the refusal does not say the node was lost and nothing ran: %s", res.Error)
	}
	if !res.Started.IsZero() {
		t.Fatalf("the record of a task that did not run shows a start: %s", res.Started)
	}
	q := <-questions
	if !q.carried || q.pending.Given.Before(given) || q.pending.Given.After(time.Now()) {
		t.Fatalf("the question before the task ran carried %+v (carried %v), want its start, after %s", q.pending, q.carried, given)
	}

	running := h.submit(broker.TaskRequest{ID: "run", Tool: "block", Probe: "run"})
	q = <-questions // asked before it runs
	if !q.carried {
		t.Fatal("the question before the blocking task ran carried no pending start")
	}
	select {
	case q = <-questions: // asked as it runs
	case <-time.After(10 * time.Second):
		t.Fatal("the running task's caller was never asked")
	}
	if q.id != "run" || q.carried {
		t.Fatalf("a question about a running task carried a pending start (%+v)", q)
	}
	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
}
