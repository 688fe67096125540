package actors

import (
	"testing"

	"github.com/corral-farm/corral/broker"
)

// An agent task stopped by its node's shutdown or its device going away is failed, as its
// record says: the causes of both say so to nodes/agent (Failing); an abort's and a
// deadline's do not.
func TestCausesThatFailTheirTask(t *testing.T) {
	s := &Scheduler{cfg: Config{Node: "n1"}}
	tk := &task{req: broker.TaskRequest{Tool: "run_agent_task"}}
	for _, tc := range []struct {
		c    *cause
		want bool
	}{
		{s.revokedTask(RevokeAll{Reason: "is shutting down", Shutdown: true}, tk, "p1"), true},
		{&cause{outcome: broker.OutcomeFailed, code: broker.CodeDisconnected, msg: "device p1 disconnected"}, true},
		{&cause{outcome: broker.OutcomeAborted, msg: "abort_task"}, false},
		{&cause{outcome: broker.OutcomeTimedOut, deadline: 1}, false},
		{s.revokedTask(RevokeAll{Reason: "lost"}, tk, "p1"), false},
	} {
		if got := tc.c.Failing(); got != tc.want {
			t.Errorf("%s (%s): Failing %v, want %v", tc.c, tc.c.outcome, got, tc.want)
		}
	}
}
