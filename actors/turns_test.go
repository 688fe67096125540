package actors

import (
	"fmt"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// order serves a queue to the end through turns and returns who was served, in order.
func order(tr *turns, queue []*waiter) string {
	var got []string
	for len(queue) > 0 {
		i := tr.pick(queue)
		w := queue[i]
		queue = append(queue[:i], queue[i+1:]...)
		tr.served(w.principal(), w.share().Weight)
		got = append(got, w.task.req.ID)
	}
	return strings.Join(got, " ")
}

func waiters(spec ...string) []*waiter {
	var q []*waiter
	count := map[string]int{}
	for _, s := range spec {
		p, weight := s, 0.0
		if i := strings.IndexByte(s, '*'); i > 0 {
			p = s[:i]
			fmt.Sscan(s[i+1:], &weight)
		}
		count[p]++
		q = append(q, &waiter{task: &task{req: broker.TaskRequest{ID: fmt.Sprintf("%s%d", p, count[p]),
			Holder: broker.Holder{Principal: p}, Share: broker.Share{Weight: weight}}}})
	}
	return q
}

func TestTurns(t *testing.T) {
	for _, c := range []struct {
		name  string
		queue []string
		want  string
	}{
		{"one principal keeps its order", []string{"a", "a", "a"}, "a1 a2 a3"},
		{"a flood does not starve a later arrival", []string{"a", "a", "a", "a", "b", "b"}, "a1 b1 a2 b2 a3 a4"},
		{"three take turns", []string{"a", "a", "b", "b", "c"}, "a1 b1 c1 a2 b2"},
		{"weight 2 takes two turns to one", []string{"a*2", "a*2", "a*2", "a*2", "b", "b"}, "a1 b1 a2 a3 b2 a4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := order(&turns{}, waiters(c.queue...)); got != c.want {
				t.Fatalf("served %q, want %q", got, c.want)
			}
		})
	}
}

// A principal away for a while comes back level with the others, not ahead by what it missed.
func TestTurnsSaveNoCreditWhileAway(t *testing.T) {
	tr := &turns{}
	order(tr, waiters("a", "a", "a", "a", "a", "a"))
	if got := order(tr, waiters("a", "b", "a", "b", "a", "b")); got != "b1 a1 b2 a2 b3 a3" {
		t.Fatalf("served %q: b, never served before, goes first (a was just served) and then alternates with a, not running ahead on credit", got)
	}
	if len(tr.next) > 1 { // only b, served last, is ahead of now
		t.Fatalf("turns remembers %d principals; it should forget those due now", len(tr.next))
	}
}

// Through the scheduler: a principal's flood of waiting tasks does not keep another's task
// behind it, and max_queued refuses its waiters beyond the policy's number on this node.
func TestSchedulerTakesTurnsAndLimitsQueuePlaces(t *testing.T) {
	h := newHarness(t, Config{})
	alice := broker.Holder{Principal: "alice"}
	share := broker.Share{MaxQueued: 2}
	running := h.submit(broker.TaskRequest{ID: "a0", Tool: "block", Holder: alice, Share: share})
	pollUntil(t, h.dev.isRunning, "a0 never ran")
	a1 := h.submit(broker.TaskRequest{ID: "a1", Tool: "noop", Holder: alice, Share: share, WaitMS: 5000})
	a2 := h.submit(broker.TaskRequest{ID: "a2", Tool: "noop", Holder: alice, Share: share, WaitMS: 5000})
	refused := h.submit(broker.TaskRequest{ID: "a3", Tool: "noop", Holder: alice, Share: share, WaitMS: 5000}).wait()
	expect(t, refused, broker.OutcomeRefused, broker.CodeQuota)
	if !strings.Contains(refused.Error, "max_queued") {
		t.Fatalf("the refusal does not name the policy's limit: %s", refused.Error)
	}
	acquired := h.acquire("bob", 5000)
	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	bob := <-acquired
	if !bob.OK {
		t.Fatalf("bob's lease: %+v", bob)
	}
	select {
	case r := <-a1:
		t.Fatalf("a1 ran (%s) while bob, who came after it but had no turn yet, holds the device", r.Outcome)
	default:
	}
	if ans := h.release(bob.Lease.Handle); !ans.OK {
		t.Fatalf("release: %+v", ans)
	}
	expect(t, a1.wait(), broker.OutcomeSucceeded, "")
	expect(t, a2.wait(), broker.OutcomeSucceeded, "")
}
