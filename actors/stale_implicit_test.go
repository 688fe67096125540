package actors

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
)

// QA: a task sent with a lease the node does not know, to a device busy with a task run
// without a lease, was told "list_leases shows yours": list_leases lists no such one-task
// lease. The refusal says the device's task runs without one, which ends with it, and names
// what finds and stops that task.
func TestStaleRefusalOnADeviceBusyWithoutALeaseNamesNoLeaseList(t *testing.T) {
	h := newHarness(t, Config{})
	running := h.submit(broker.TaskRequest{ID: "r", Tool: "block", Holder: broker.Holder{Principal: "alice"}})
	pollUntil(t, h.dev.isRunning, "task r never started")

	r := h.submit(broker.TaskRequest{ID: "stale", Tool: "noop", Lease: broker.NewLeaseHandle()}).wait()
	expect(t, r, broker.OutcomeRefused, broker.CodeStaleLease)
	for _, says := range []string{"the lease you passed is unknown to node n for device d1", "d1 runs block for alice without a lease",
		"That task runs without a lease (a one-task lease that ends with it; list_leases lists none)",
		`get_latest_task {"anyTool": true, "serial": "d1"} shows it if it is yours, abort_task {"serial": "d1"} stops it`} {
		assert.Contains(t, r.Error, says)
	}
	assert.NotContains(t, r.Error, "list_leases shows yours")

	h.abort(broker.AbortRequest{TaskID: "r"})
	expect(t, running.wait(), broker.OutcomeAborted, "")
}
