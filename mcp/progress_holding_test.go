package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A waiting call is told the hard end its node's busy answer gave while the registry shows
// that same holding: the same lease (epoch), or the same task run without a lease. A later
// lease of the same holder (a new grant, a new epoch) or another's task run without a lease
// at the old epoch is not that holding, though it shows the same name: its end is not told.
func TestOccupantTellsTheHardEndOfTheSameHoldingOnly(t *testing.T) {
	alice := broker.Holder{Principal: "alice", Client: "ci", Session: "1a2b3c4d5e"}
	maxUntil := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	lease := &broker.Lease{Holder: alice, Epoch: 3, MaxUntil: maxUntil}
	run := &broker.Lease{Holder: alice, Epoch: 3, MaxUntil: maxUntil,
		Running: &broker.RunningTask{ID: "t_1", Tool: "home", Implicit: true}}
	entry := func(epoch uint64, task *broker.RunningTask) broker.DeviceEntry {
		return broker.DeviceEntry{Serial: "s1", Holder: alice.String(), Epoch: epoch, Task: task}
	}
	implicit := func(id string) *broker.RunningTask {
		return &broker.RunningTask{ID: id, Tool: "home", Holder: &alice, Implicit: true}
	}
	for _, tc := range []struct {
		name  string
		known *broker.Lease
		d     broker.DeviceEntry
		told  bool
	}{
		{"the same lease", lease, entry(3, nil), true},
		{"the same lease running a task", lease, entry(3, &broker.RunningTask{ID: "t_2", Tool: "home", Holder: &alice}), true},
		{"a later lease of the same holder", lease, entry(4, nil), false},
		{"the lease's holder's task without a lease after it", lease, entry(3, implicit("t_3")), false},
		{"the same task without a lease", run, entry(3, implicit("t_1")), true},
		{"another task without a lease", run, entry(3, implicit("t_4")), false},
	} {
		got := occupant(tc.d, tc.known)
		if !strings.HasPrefix(got, ": held by alice (ci) session 1a2b3c4d5e") {
			t.Errorf("%s: %q does not name the holder with its session", tc.name, got)
		}
		if told := strings.Contains(got, "at most until 2030-01-01T10:00:00Z"); told != tc.told {
			t.Errorf("%s: %q tells the hard end: %v, want %v", tc.name, got, told, tc.told)
		}
	}
}
