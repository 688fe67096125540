package mcp_test

import (
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A task that waited behind its caller's own running task while the lease ended is refused in
// the words of the lease the caller knows, a group member's or a selection's, from the node's
// fields: the node's "your lease of n2-p1 was revoked (…) while this task waited" speaks of a
// lease the caller never passed.
func TestRefusalOfATaskThatWaitedWhileItsLeaseEndedIsWordedFromFields(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Quiet: true})
	revoke := func(serial string) {
		t.Helper()
		ans, err := f.Gateway().Client.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Force: true, By: "ops-oncall"})
		require.NoError(t, err)
		require.True(t, ans.OK, "forced release of %s: %+v", serial, ans)
	}
	// queuedBehindSleep runs a sleep on serial with args, then a tap that waits behind it, and
	// returns the tap's answer once it waits.
	queuedBehindSleep := func(c *client.Client, serial string, args map[string]any) <-chan farmtest.Answer {
		t.Helper()
		sleep := map[string]any{"seconds": 30}
		tap := map[string]any{"x": 0.5, "y": 0.3}
		for k, v := range args {
			sleep[k], tap[k] = v, v
		}
		sleeping := farmtest.Go(t, c, "sleep", sleep)
		t.Cleanup(func() { <-sleeping })
		farmtest.Eventually(t, 10*time.Second, func() bool {
			d, _ := f.Gateway().Client.Device(serial)
			return d.State == broker.StateBusy
		}, "the sleep running on "+serial)
		tapped := farmtest.Go(t, c, "tap_xy", tap)
		farmtest.Eventually(t, 10*time.Second, func() bool {
			l := leaseOf(t, f, serial)
			return l != nil && l.QueueLen == 1
		}, "the tap waiting behind the sleep on "+serial)
		return tapped
	}

	t.Run("group member", func(t *testing.T) {
		alice := f.Client("alice")
		grp := acquireGroup(t, alice, map[string]any{"count": 2})
		tapped := queuedBehindSleep(alice, "n2-p1", map[string]any{"serial": "n2-p1", "lease": grp.Handle})
		revoke("n2-p1")
		text := wantRefused(t, (<-tapped).Get(t), "(stale_lease)",
			"lease group "+grp.ID+" no longer holds n2-p1: its lease of it was revoked at 20",
			"(forced release by ops-oncall); n2-p1 ", "(release_device with the group's lease frees the rest of the group)")
		require.NotContains(t, text, "while this task waited", "the node's words about the caller's lease")
		require.NotContains(t, text, grp.Handle[len(grp.Handle)-8:])
		farmtest.MustCall(t, alice, "release_device", map[string]any{"lease": grp.Handle})
	})

	t.Run("selection in a session", func(t *testing.T) {
		c := f.ClientWithProtocol("agent", withSession)
		var sel mcp.SelectDeviceResult
		farmtest.Structured(t, farmtest.MustCall(t, c, "select_device", map[string]any{"serial": "n1-p1"}), &sel)
		tapped := queuedBehindSleep(c, "n1-p1", nil)
		revoke("n1-p1")
		text := wantRefused(t, (<-tapped).Get(t), "(stale_lease)",
			"the lease select_device took for n1-p1 was revoked at 20", "(forced release by ops-oncall); n1-p1 ",
			"This session's selection keeps n1-p1 without a lease: call select_device again to hold it")
		require.NotContains(t, text, "while this task waited", "the node's words about the caller's lease")
		require.NotContains(t, text, sel.Lease.Handle[len(sel.Lease.Handle)-8:])
	})
}
