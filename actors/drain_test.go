package actors

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

func (h *harness) drain(action string) broker.DrainAnswer {
	p := make(chan broker.DrainAnswer, 1)
	h.root.Send(h.sched, Drain{Req: broker.DrainRequest{Action: action, By: "ops"}, Reply: func(a broker.DrainAnswer) { p <- a }})
	select {
	case a := <-p:
		return a
	case <-time.After(5 * time.Second):
		h.t.Fatal("no drain answer")
		return broker.DrainAnswer{}
	}
}

// A draining node lets what runs finish and lease holders carry on, refuses everything new,
// answers the waiters at once, and takes work again when undrained.
func TestDrainRefusesNewWorkAndLetsRunningWorkFinish(t *testing.T) {
	h := newHarness(t, Config{})
	l := (<-h.acquire("alice", 0)).Lease
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block", Lease: l.Handle})
	bobWaits := h.acquire("bob", 5000)
	carolWaits := h.submit(broker.TaskRequest{ID: "c", Tool: "noop", WaitMS: 5000})

	ans := h.drain(broker.DrainStart)
	if !ans.Draining || ans.By != "ops" || ans.Running != 1 || ans.Leases != 1 || ans.Refused != 2 || ans.Idle() {
		t.Fatalf("drain answer %+v", ans)
	}
	if a := <-bobWaits; a.OK || a.Code != broker.CodeDraining {
		t.Fatalf("bob waiting for the lease: %+v", a)
	}
	expect(t, carolWaits.wait(), broker.OutcomeRefused, broker.CodeDraining)
	refused := h.submit(broker.TaskRequest{ID: "d", Tool: "noop", WaitMS: 5000}).wait()
	expect(t, refused, broker.OutcomeRefused, broker.CodeDraining)
	if !strings.HasPrefix(refused.Error, "node n is draining") {
		t.Fatalf("refusal says %q", refused.Error)
	}
	if a := <-h.acquire("dave", 0); a.Code != broker.CodeDraining {
		t.Fatalf("acquire on a draining node: %+v", a)
	}

	// The holder's work goes on.
	queued := h.submit(broker.TaskRequest{ID: "q", Tool: "noop", Lease: l.Handle})
	h.dev.release <- struct{}{}
	expect(t, running.wait(), broker.OutcomeSucceeded, "")
	expect(t, queued.wait(), broker.OutcomeSucceeded, "")
	if ans := h.release(l.Handle); !ans.OK {
		t.Fatalf("holder's release: %+v", ans)
	}
	if ans := h.drain(broker.DrainStatus); !ans.Draining || !ans.Idle() {
		t.Fatalf("after the holder left: %+v", ans)
	}

	if ans := h.drain(broker.DrainUndo); ans.Draining {
		t.Fatalf("undrain answer %+v", ans)
	}
	expect(t, h.submit(broker.TaskRequest{ID: "e", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	if ans := h.drain("nap"); ans.Code != broker.CodeBadInput {
		t.Fatalf("unknown action: %+v", ans)
	}
	var whats []string
	h.rec.mu.Lock()
	for _, ev := range h.rec.events {
		if ev.Kind == "node" || ev.What == broker.StateDraining {
			whats = append(whats, ev.Kind+":"+ev.What)
		}
	}
	h.rec.mu.Unlock()
	want := []string{"node:draining", "device:draining", "node:undrained"}
	if len(whats) != len(want) || whats[0] != want[0] || whats[1] != want[1] || whats[2] != want[2] {
		t.Fatalf("events %v, want %v", whats, want)
	}
}

// An operator's forced release revokes the lease, cancels the holder's running task, fences
// the handle and records who did it.
func TestForcedReleaseRevokes(t *testing.T) {
	h := newHarness(t, Config{})
	l := (<-h.acquire("alice", 0)).Lease
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block", Lease: l.Handle})
	p := make(chan broker.LeaseAnswer, 1)
	h.root.Send(h.sched, ReleaseLease{Req: broker.ReleaseRequest{Serial: "d1", Force: true, By: "operator bob"},
		Reply: func(a broker.LeaseAnswer) { p <- a }})
	if a := <-p; !a.OK || a.Lease.Holder.Principal != "alice" || a.Lease.Handle != "" {
		t.Fatalf("forced release: %+v", a)
	}
	r := running.wait()
	expect(t, r, broker.OutcomeAborted, "")
	expect(t, h.submit(broker.TaskRequest{ID: "x", Tool: "noop", Lease: l.Handle}).wait(), broker.OutcomeRefused, broker.CodeStaleLease)
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	for _, ev := range h.rec.events {
		if ev.Kind == "lease" && ev.What == "revoked" && ev.Reason == "forced release by operator bob" && ev.Holder == "alice" {
			return
		}
	}
	t.Fatalf("no revoked event naming the operator in %+v", h.rec.events)
}
