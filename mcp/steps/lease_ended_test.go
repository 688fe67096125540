package steps

import (
	"testing"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A group that is gone (released, or a minute after its last device's lease ended: 30f921a) is
// refused when released again; leaseEnded must read that refusal as "nothing to give back",
// not as a lease the run could not release (kept in Holding, with a warning).
func TestLeaseEndedReadsAGoneGroup(t *testing.T) {
	_, c, _ := startFarm(t)
	var grp struct{ Group struct{ Handle string } }
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"count": 2}), &grp)
	if grp.Group.Handle == "" {
		t.Fatal("acquire_device count 2 gave no group handle")
	}
	farmtest.MustCall(t, c, "release_device", map[string]any{"lease": grp.Group.Handle})
	again := farmtest.Call(t, c, "release_device", map[string]any{"lease": grp.Group.Handle})
	if !again.IsError || !leaseEnded(again) {
		t.Fatalf("releasing a gone group: leaseEnded is false for %q", farmtest.Text(again))
	}
}
