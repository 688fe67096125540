package actors

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// An abort that comes within Grace of its task's device going away, while the task's op still
// returns what it did, ends the task aborted by whoever asked, as its answer said: the answer
// and the record say that the device had gone too, and keep the op's partial result, if it
// returned one in time. The abort used to answer the task aborted while it then ended failed
// with code disconnected, as if the abort had not come.
func TestAbortWithinUnplugGraceEndsTheTaskAborted(t *testing.T) {
	for _, c := range []struct {
		name    string
		ignores bool // the op ignores its cancellation: Grace's timer answers the task
	}{{"the op returns", false}, {"the op never returns", true}} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Config{Grace: 2 * time.Second})
			d := addStopsWithSteps(h, c.ignores)
			defer close(d.stopped)
			running := h.submit(broker.TaskRequest{ID: "agent", Serial: "p1", Tool: "work"})
			<-d.started
			h.root.Send(h.sched, RemoveDevice{Serial: "p1", Reason: "adb lost"})
			ans := h.abort(broker.AbortRequest{TaskID: "agent", By: "alice (claude)"})
			if len(ans.Aborted) != 1 || ans.Aborted[0] != "agent" {
				t.Fatalf("the abort within Grace answered %+v, want the task", ans)
			}
			// A second abort aborts nothing: the first already ends the task (QA: without
			// abortedAlready's t.aborted, both answered the task aborted).
			if again := h.abort(broker.AbortRequest{TaskID: "agent", By: "bob (claude)"}); len(again.Aborted) != 0 {
				t.Errorf("a second abort within Grace answered %+v, want nothing aborted", again)
			}
			if !c.ignores {
				d.stopped <- struct{}{}
			}
			res := running.wait()
			for what, r := range map[string]broker.TaskResult{"answer": res, "record": h.record("agent")} {
				expect(t, r, broker.OutcomeAborted, "")
				for _, want := range []string{"aborted by alice (claude)", "device p1 disconnected during the task (adb lost)"} {
					if !strings.Contains(r.Error, want) {
						t.Errorf("the %s says %q, not %q", what, r.Error, want)
					}
				}
				if got := strings.Contains(string(r.Data), `"totalSteps":1`); got == c.ignores {
					t.Errorf("the %s's partial result: %s", what, r.Data)
				}
			}
		})
	}
}
