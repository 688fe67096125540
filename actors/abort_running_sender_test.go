package actors

import (
	"slices"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// Under a policy (AbortRequest.Principal set) a running task is aborted, by task id or by its
// device's serial, only by its sender or the device's lease holder; another principal is
// refused denied, naming the sender and the rule, and the task runs on. The node checks it at
// once: the gateway's check reads the registry, which shows a task only a moment after it
// starts. Operators (no principal), the lease's handle and a task sent without a principal
// are left as before.
func TestAbortOfAnotherPrincipalsRunningTaskIsDenied(t *testing.T) {
	h := newHarness(t, Config{})
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block", Holder: broker.Holder{Principal: "beta"}})
	pollUntil(t, h.dev.isRunning, "task r never started")

	for what, req := range map[string]broker.AbortRequest{
		"by task id":           {TaskID: "r", Principal: "gamma"},
		"by serial":            {Serial: "d1", Principal: "gamma"},
		"by task id with all":  {TaskID: "r", All: true, Principal: "gamma"},
		"by serial and its id": {Serial: "d1", TaskID: "r", Principal: "gamma"},
	} {
		ans := h.abort(req)
		if ans.Code != broker.CodeDenied || len(ans.Aborted) != 0 {
			t.Fatalf("gamma's abort %s of beta's running task answered %s, aborted %v (%s); want denied", what, ans.Code, ans.Aborted, ans.Error)
		}
		for _, part := range []string{`principal "gamma" may not abort task r, which principal "beta" runs on device d1`, "rule: " + ruleRunningSender} {
			if !strings.Contains(ans.Error, part) {
				t.Errorf("gamma's abort %s: %q does not say %q", what, ans.Error, part)
			}
		}
	}
	if !h.dev.isRunning() {
		t.Fatal("beta's task stopped after gamma's refused aborts")
	}
	if ans := h.abort(broker.AbortRequest{TaskID: "r", Principal: "beta"}); !slices.Equal(ans.Aborted, []string{"r"}) {
		t.Fatalf("beta's abort of its own task answered %s, aborted %v (%s)", ans.Code, ans.Aborted, ans.Error)
	}
	expect(t, running.wait(), broker.OutcomeAborted, "")

	// Under alpha's lease, a task beta sent with alpha's handle: alpha, the holder, aborts it
	// by id; gamma may not; the handle itself aborts it; an operator too.
	l := (<-h.acquire("alpha", 0)).Lease
	for _, c := range []struct {
		id    string
		by    broker.AbortRequest
		label string
	}{
		{"s1", broker.AbortRequest{TaskID: "s1", Principal: "alpha"}, "the lease holder"},
		{"s2", broker.AbortRequest{Lease: l.Handle, Principal: "gamma"}, "the lease's handle"},
		{"s3", broker.AbortRequest{Serial: "d1"}, "an operator"},
	} {
		p := h.submit(broker.TaskRequest{ID: c.id, Tool: "block", Lease: l.Handle, Holder: broker.Holder{Principal: "beta"}})
		pollUntil(t, h.dev.isRunning, "task "+c.id+" never started")
		if ans := h.abort(broker.AbortRequest{TaskID: c.id, Principal: "gamma"}); ans.Code != broker.CodeDenied {
			t.Fatalf("gamma's abort of %s under alpha's lease answered %s, aborted %v", c.id, ans.Code, ans.Aborted)
		}
		if ans := h.abort(c.by); !slices.Equal(ans.Aborted, []string{c.id}) {
			t.Fatalf("%s's abort of %s answered %s, aborted %v (%s)", c.label, c.id, ans.Code, ans.Aborted, ans.Error)
		}
		expect(t, p.wait(), broker.OutcomeAborted, "")
		pollUntil(t, func() bool { return !h.dev.isRunning() }, "task "+c.id+" still runs")
	}
	h.release(l.Handle)

	// A task sent where no policy holds has no sender to keep it: as before, any caller aborts it.
	p := h.submit(broker.TaskRequest{ID: "u", Tool: "block"})
	pollUntil(t, h.dev.isRunning, "task u never started")
	if ans := h.abort(broker.AbortRequest{TaskID: "u", Principal: "gamma"}); !slices.Equal(ans.Aborted, []string{"u"}) {
		t.Fatalf("gamma's abort of a task without a sender answered %s, aborted %v (%s)", ans.Code, ans.Aborted, ans.Error)
	}
	expect(t, p.wait(), broker.OutcomeAborted, "")
}
