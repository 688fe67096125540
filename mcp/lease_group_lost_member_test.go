package mcp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// waitsHoldingTwo starts alice's acquire_device of all four devices while bob holds n2-p1: she
// takes n1-p1 and n1-p2 (before n2-p1 in the global order) and waits in n2-p1's queue. It
// returns bob's lease of n2-p1 and alice's pending answer.
func waitsHoldingTwo(t *testing.T, f *farmtest.Farm, waitSeconds float64) (string, <-chan farmtest.Answer) {
	t.Helper()
	alice, bob := f.Client("alice"), f.Client("bob")
	var held struct {
		Lease mcp.LeaseInfo `json:"lease"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, bob, "acquire_device", map[string]any{"serial": "n2-p1"}), &held)
	got := farmtest.Go(t, alice, "acquire_device", map[string]any{"count": 4, "wait_seconds": waitSeconds})
	farmtest.Eventually(t, 10*time.Second, func() bool {
		ls, err := f.Gateway().Client.Leases(t.Context())
		return err == nil && len(ls) == 3 && slicesHas(ls, "n2-p1", 1)
	}, "alice holds n1-p1, n1-p2 and waits for n2-p1")
	return held.Lease.Handle, got
}

// forceRelease revokes serial's lease as an operator does (corral release --force).
func forceRelease(t *testing.T, f *farmtest.Farm, serial string) {
	t.Helper()
	ans, err := f.Gateway().Client.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Force: true, By: "ops-oncall"})
	require.NoError(t, err)
	require.True(t, ans.OK, ans.Error)
}

// A device taken early for a group and revoked while the caller waited for the others is
// taken again, free, before the group is granted: every member the answer calls held is held
// (QA D1: the group was granted "all held" with the revoked member's lease gone, and a call
// on it was refused stale_lease, revoked before the grant).
func TestGroupMemberRevokedDuringTheWaitIsTakenAgain(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 2})
	bobsLease, got := waitsHoldingTwo(t, f, 30)
	forceRelease(t, f, "n1-p1")
	farmtest.MustCall(t, f.Client("bob"), "release_device", map[string]any{"lease": bobsLease})

	res := (<-got).Get(t)
	require.False(t, res.IsError, farmtest.Text(res))
	var out mcp.AcquireResult
	farmtest.Structured(t, res, &out)
	require.NotNil(t, out.Group, out.Message)
	require.Len(t, out.Group.Members, 4)
	leases, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	assert.Len(t, leases, 4, "the group was granted with a member not held: %+v", leases)
	alice := f.Client("alice")
	for _, m := range out.Group.Members {
		assert.Equal(t, "held", m.State)
		farmtest.MustCall(t, alice, "get_screen_size", map[string]any{"serial": m.Serial, "lease": out.Group.Handle})
	}
}

// A device revoked during the wait and taken by someone else meanwhile cannot be taken again:
// the group is refused within the caller's wait, saying which device and why, and nothing of
// it stays held.
func TestGroupMemberRevokedAndTakenDuringTheWaitRefusesTheGroup(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 2})
	start := time.Now()
	bobsLease, got := waitsHoldingTwo(t, f, 6)
	forceRelease(t, f, "n1-p1")
	farmtest.MustCall(t, f.Client("carol"), "acquire_device", map[string]any{"serial": "n1-p1"})
	farmtest.MustCall(t, f.Client("bob"), "release_device", map[string]any{"lease": bobsLease})

	res := (<-got).Get(t)
	assert.Less(t, time.Since(start), 10*time.Second, "answered long after its wait")
	text := wantRefused(t, res, "could not lease 4 devices", "n1-p1", "carol", "Nothing is held")
	assert.NotContains(t, text, "Leased 4")
	leases, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	require.Len(t, leases, 1, "alice still holds devices of the refused group: %+v", leases)
	assert.Equal(t, "n1-p1", leases[0].Serial)
}

// Releasing a group with a member on a lost node counts that member as ended, as list_leases
// shows it (revoked: its node lost), and releases the group: the loss ended the member's lease
// and asking again cannot change that (QA D6: "released 1; could not release n2-p1 (node n2 is
// lost …); call release_device with the group's lease again", and the same again for ever).
func TestGroupReleaseWithAMemberOnALostNode(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1})
	alice := f.Client("alice")
	grp := acquireGroup(t, alice, map[string]any{"count": 2})
	require.Equal(t, []string{"n1-p1", "n2-p1"}, serialsOf(grp))
	f.KillNode("n2")
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device("n2-p1")
		return ok && d.State == broker.StateOffline
	}, "n2-p1 offline once n2 is lost")

	res := farmtest.Call(t, alice, "release_device", map[string]any{"lease": grp.Handle})
	text := farmtest.Text(res)
	require.False(t, res.IsError, text)
	assert.Contains(t, text, "devices n1-p1")
	assert.Contains(t, text, "Already ended: n2-p1 (revoked")
	wantRefused(t, farmtest.Call(t, alice, "release_device", map[string]any{"lease": grp.Handle}), "no lease group has this handle")
	leases, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	assert.Empty(t, leases)
}

// The devices taken early on a node that restarted during the wait (its leases revoked by the
// restart) are taken again from the restarted node before the group is granted.
func TestGroupMembersOfANodeRestartedDuringTheWaitAreTakenAgain(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 2})
	bobsLease, got := waitsHoldingTwo(t, f, 60)
	before, _ := f.Gateway().Client.Device("n1-p1")
	f.KillNode("n1")
	f.StartNode("n1", 2)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device("n1-p1")
		return ok && d.State == broker.StateOnline && d.Epoch > before.Epoch
	}, "n1-p1 online under the restarted node")
	farmtest.MustCall(t, f.Client("bob"), "release_device", map[string]any{"lease": bobsLease})

	res := (<-got).Get(t)
	require.False(t, res.IsError, farmtest.Text(res))
	var out mcp.AcquireResult
	farmtest.Structured(t, res, &out)
	require.NotNil(t, out.Group, out.Message)
	leases, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	assert.Len(t, leases, 4, "the group was granted with members its restarted node no longer holds: %+v", leases)
	alice := f.Client("alice")
	for _, m := range out.Group.Members {
		farmtest.MustCall(t, alice, "get_screen_size", map[string]any{"serial": m.Serial, "lease": out.Group.Handle})
	}
}
