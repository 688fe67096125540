package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// release_device {} of a selection whose lease has ended said the node's "the lease you
// passed for n1-p1 was revoked …: nothing to release", though the caller passed none. It is
// worded for the selection from the node's fields, as a tool call's refusal is, and the
// selection lets go of the lease (in a session it keeps the device; without one it is
// forgotten). No refusal quotes the handle.
func TestReleaseOfASelectionWhoseLeaseEndedSpeaksOfTheSelection(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	revoke := func() {
		t.Helper()
		ans, err := f.Gateway().Client.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: "n1-p1", Force: true, By: "ops-oncall"})
		require.NoError(t, err)
		require.True(t, ans.OK, "forced release: %+v", ans)
	}
	for _, tc := range []struct{ protocol, tail string }{
		{withSession, "This session's selection keeps n1-p1 without a lease: call select_device again to hold it"},
		{withoutSession, "The selection is forgotten: call select_device again to hold n1-p1"},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			c := f.ClientWithProtocol("agent-"+tc.protocol, tc.protocol)
			var sel mcp.SelectDeviceResult
			farmtest.Structured(t, farmtest.MustCall(t, c, "select_device", map[string]any{"serial": "n1-p1"}), &sel)
			revoke()
			text := wantRefused(t, farmtest.Call(t, c, "release_device", map[string]any{}),
				"release_device on n1-p1 refused (stale_lease): nothing to release: the lease select_device took for n1-p1 was revoked at 20",
				"(forced release by ops-oncall); n1-p1 is free now. "+tc.tail)
			for _, w := range nodeWords {
				assert.NotContains(t, text, w)
			}
			assert.NotContains(t, text, sel.Lease.Handle[len(sel.Lease.Handle)-8:])
			farmtest.MustCall(t, c, "tap_xy", map[string]any{"serial": "n1-p1", "x": 0.5, "y": 0.3}) // without the ended lease now
			assert.Nil(t, leaseOf(t, f, "n1-p1"), "a call after the refusal took a lease")
		})
	}
}
