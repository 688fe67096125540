package mcp

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// A wait_expired refusal whose lease names nobody (an older node's answer on a device that went
// unhealthy while the caller waited) says no one holds it, never a zero time: it read "Held by
// until 0001-01-01T00:00:00Z (in -2562047h…), at most until 0001-01-01…" (QA D4).
func TestRefusalOfADeviceNobodyHoldsShowsNoZeroTime(t *testing.T) {
	res := broker.TaskResult{Tool: "tap_xy", Serial: "ios-sim-01", Outcome: broker.OutcomeRefused, Code: broker.CodeWaitExpired,
		Error: "waited 30s in the queue of ios-sim-01 without getting it", Lease: &broker.Lease{Serial: "ios-sim-01", Node: "local"}}
	text := failureText(res, broker.Holder{Principal: "bob"})
	for _, bad := range []string{"0001-01-01", "Held by", "-2562047h"} {
		if strings.Contains(text, bad) {
			t.Errorf("the refusal says %q: %s", bad, text)
		}
	}
	if !strings.Contains(text, "No one holds it now; 0 waiting.") {
		t.Errorf("the refusal does not say no one holds it: %s", text)
	}
}
