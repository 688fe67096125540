package actors

import (
	"testing"

	"github.com/corral-farm/corral/broker"
)

// The record of an aborted task names who aborted it (aborted_by; SCHEDULER.md "aborted (by
// whom)"): the abort's asker for the running task and the queued ones All drops, the task's own
// holder when its caller stopped waiting, and the operator of a forced release. It was never
// set: who aborted was only inside the error's words.
func TestAbortedTaskRecordSaysWhoAborted(t *testing.T) {
	h := newHarness(t, Config{})
	alice := broker.Holder{Principal: "alice"}

	running := h.submit(broker.TaskRequest{ID: "run", Tool: "block", Holder: alice})
	waitRunning(t, h.dev)
	queued := h.submit(broker.TaskRequest{ID: "queued", Tool: "noop", Holder: alice, WaitMS: 10_000})
	h.abort(broker.AbortRequest{Serial: "d1", All: true, By: "bob (laptop)"})
	for id, p := range map[string]pending{"run": running, "queued": queued} {
		res := p.wait()
		expect(t, res, broker.OutcomeAborted, "")
		if rec := h.record(id); rec.AbortedBy != "bob (laptop)" {
			t.Errorf("task %s's record: aborted_by %q, want %q (error %q)", id, rec.AbortedBy, "bob (laptop)", rec.Error)
		}
	}

	gone := h.submit(broker.TaskRequest{ID: "gone", Tool: "block", Holder: alice})
	waitRunning(t, h.dev)
	h.abort(broker.AbortRequest{Serial: "d1", TaskID: "gone", By: clientCancelled})
	expect(t, gone.wait(), broker.OutcomeAborted, "")
	if rec := h.record("gone"); rec.AbortedBy != alice.String() {
		t.Errorf("a task whose caller stopped waiting: aborted_by %q, want its holder %q", rec.AbortedBy, alice.String())
	}

	l := (<-h.acquire("carol", 0)).Lease
	leased := h.submit(broker.TaskRequest{ID: "leased", Tool: "block", Lease: l.Handle, Holder: l.Holder})
	waitRunning(t, h.dev)
	p := make(chan broker.LeaseAnswer, 1)
	h.root.Send(h.sched, ReleaseLease{Req: broker.ReleaseRequest{Serial: "d1", Force: true, By: "ops-oncall"}, Reply: func(a broker.LeaseAnswer) { p <- a }})
	<-p
	expect(t, leased.wait(), broker.OutcomeAborted, "")
	if rec := h.record("leased"); rec.AbortedBy != "ops-oncall" {
		t.Errorf("a task of a lease revoked by force: aborted_by %q, want %q", rec.AbortedBy, "ops-oncall")
	}
}
