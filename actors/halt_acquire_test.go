package actors

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// leaseAnswer waits for an acquire's answer.
func leaseAnswer(t *testing.T, ch chan broker.LeaseAnswer, what string) broker.LeaseAnswer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(10 * time.Second):
		t.Fatalf("no answer to %s", what)
		return broker.LeaseAnswer{}
	}
}

// A halted device is out of acquire_device: a lease request waiting for it when it halts is
// refused then with the halt's reason (it was granted once the holder released, to a device
// whose every gesture failed), and so is a new one; the holder's release grants nothing.
func TestHaltedDeviceRefusesItsLeaseWaiters(t *testing.T) {
	h := newHarness(t, Config{})
	const reason = "halted by emergency_stop: when a person has looked at it, resume with arm_recover"
	holder := leaseAnswer(t, h.acquire("alice", 0), "alice's acquire")
	if !holder.OK {
		t.Fatalf("alice's acquire: %+v", holder)
	}
	waiting := h.acquire("bob", 10_000)
	h.root.Send(h.sched, SetHalted{Serial: "d1", Reason: reason})

	for what, a := range map[string]broker.LeaseAnswer{
		"bob's waiting acquire": leaseAnswer(t, waiting, "bob's waiting acquire"),
		"carol's new acquire":   leaseAnswer(t, h.acquire("carol", 10_000), "carol's new acquire"),
	} {
		if a.OK || a.Code != broker.CodeUnhealthy || !strings.Contains(a.Error, "halted") || !strings.Contains(a.Error, "arm_recover") {
			t.Errorf("%s on a halted device: %+v, want unhealthy naming the halt and arm_recover", what, a)
		}
	}
	if a := h.release(holder.Lease.Handle); !a.OK {
		t.Fatalf("alice's release: %+v", a)
	}
	h.rec.mu.Lock()
	shown := h.rec.devices["d1"]
	h.rec.mu.Unlock()
	if shown.State != broker.StateUnhealthy || shown.Holder != "" {
		t.Fatalf("the halted device after the release is shown %s held by %q, want unhealthy and held by none", shown.State, shown.Holder)
	}
}
