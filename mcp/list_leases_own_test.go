package mcp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// list_leases {serial} agrees with list_leases {} for a principal whose policy narrowed: its
// own lease on a device it may no longer use is listed (it was 'denied by policy … may not use
// device'), and nothing else is: another principal's lease on a device outside the policy, a
// free one, and the device once the lease is given back are still refused; the other principal
// may not list the lease.
func TestNarrowedPolicyListsOwnLeaseBySerial(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true})
	f.WaitDevices(3, "online")
	before, after := policyGateway(t, f, narrowingPolicy(t, "sim")), policyGateway(t, f, narrowingPolicy(t, "wifi"))
	labBefore := tokenClient(t, before, "lab-agent", narrowedLabToken)
	lab, other := tokenClient(t, after, "lab-agent", narrowedLabToken), tokenClient(t, after, "other-agent", narrowedOtherToken)

	var mine mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, labBefore, "acquire_device", map[string]any{"serial": "n1-p1"}), &mine)
	// n1-p2: another principal's lease (anonymous, through the farm's own gateway)
	farmtest.MustCall(t, f.Client("agent"), "acquire_device", map[string]any{"serial": "n1-p2"})
	// ownsLease reads the registry, a moment behind the node
	farmtest.Eventually(t, 15*time.Second, func() bool {
		d1, ok1 := f.Gateway().Client.Device("n1-p1")
		d2, ok2 := f.Gateway().Client.Device("n1-p2")
		return ok1 && ok2 && d1.Holder != "" && d2.Holder != ""
	}, "the registry shows n1-p1 and n1-p2 held")

	var got mcp.LeasesResult
	farmtest.Structured(t, farmtest.MustCall(t, lab, "list_leases", map[string]any{"serial": "n1-p1"}), &got)
	if assert.Len(t, got.Leases, 1, "lab's list_leases of n1-p1") {
		l := got.Leases[0]
		assert.Equal(t, "n1-p1", l.Serial)
		assert.Equal(t, mine.Lease.Epoch, l.Epoch)
		assert.True(t, l.Yours, "lab's own lease is marked yours")
		assert.Empty(t, l.Handle, "a listed lease shows no handle")
	}
	assert.Equal(t, 1, got.Summary.Total, "the summary counts lab's lease only")
	var all mcp.LeasesResult
	farmtest.Structured(t, farmtest.MustCall(t, lab, "list_leases", map[string]any{}), &all)
	assert.Equal(t, got.Leases, all.Leases, "list_leases {serial} and {} of lab")

	wantRefused(t, farmtest.Call(t, lab, "list_leases", map[string]any{"serial": "n1-p1", "platform": "ios"}), "device n1-p1 is android, not ios")
	wantRefused(t, farmtest.Call(t, lab, "list_leases", map[string]any{"serial": "n1-p2"}), `denied by policy: principal "lab" may not use device n1-p2`)
	wantRefused(t, farmtest.Call(t, lab, "list_leases", map[string]any{"serial": "n1-p3"}), `denied by policy: principal "lab" may not use device n1-p3`)
	wantRefused(t, farmtest.Call(t, other, "list_leases", map[string]any{"serial": "n1-p1"}), `denied by policy: principal "other" may not use device n1-p1`)

	res := farmtest.Call(t, lab, "release_device", map[string]any{"serial": "n1-p1", "lease": mine.Lease.Handle})
	require.False(t, res.IsError, "lab's release: %s", farmtest.Text(res))
	farmtest.Eventually(t, 15*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device("n1-p1")
		return ok && d.Holder == ""
	}, "the registry shows n1-p1 free")
	wantRefused(t, farmtest.Call(t, lab, "list_leases", map[string]any{"serial": "n1-p1"}), `denied by policy: principal "lab" may not use device n1-p1`)
}
