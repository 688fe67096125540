package actors

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A task of another than the holder, waiting for the holder's lease when the device halts, is
// refused then (unhealthy, with the halt's reason), as a waiting lease request is; so is one
// that comes while the device is halted and would wait. It waited out its wait_seconds, told
// only who held the device, never that it had halted. The holder's own tasks still run.
func TestHaltedDeviceRefusesTheTasksWaitingForIt(t *testing.T) {
	h := newHarness(t, Config{})
	const reason = "halted by emergency_stop: when a person has looked at it, resume with arm_recover"
	holder := leaseAnswer(t, h.acquire("alice", 0), "alice's acquire")
	if !holder.OK {
		t.Fatalf("alice's acquire: %+v", holder)
	}
	alice := broker.Holder{Principal: "alice"}
	long := h.submit(broker.TaskRequest{ID: "seq", Tool: "block", Lease: holder.Lease.Handle, Holder: alice})
	next := h.submit(broker.TaskRequest{ID: "look", Tool: "noop", Lease: holder.Lease.Handle, Holder: alice, WaitMS: 60_000})
	waiting := h.submit(broker.TaskRequest{ID: "bob", Tool: "tap", Holder: broker.Holder{Principal: "bob"}, WaitMS: 60_000})
	h.root.Send(h.sched, SetHalted{Serial: "d1", Reason: reason})

	for what, r := range map[string]broker.TaskResult{
		"bob's waiting tap": waiting.wait(),
		"carol's new tap":   h.submit(broker.TaskRequest{ID: "carol", Tool: "tap", Holder: broker.Holder{Principal: "carol"}, WaitMS: 60_000}).wait(),
	} {
		if r.Outcome != broker.OutcomeRefused || r.Code != broker.CodeUnhealthy || !strings.Contains(r.Error, "halted by emergency_stop") ||
			!strings.Contains(r.Error, "arm_recover") {
			t.Errorf("%s on a halted device: %s (%s) %q, want refused unhealthy naming the halt and arm_recover", what, r.Outcome, r.Code, r.Error)
		}
	}
	select {
	case h.dev.release <- struct{}{}:
	case <-time.After(10 * time.Second):
		t.Fatal("the holder's long task is not running")
	}
	expect(t, long.wait(), broker.OutcomeSucceeded, "")
	expect(t, next.wait(), broker.OutcomeSucceeded, "") // the holder's own: its recovery, its looks
}
