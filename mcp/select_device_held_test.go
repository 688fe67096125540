package mcp_test

import (
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// leaseOf is the lease a node holds on serial now (nil: none), as the farm's leases list it.
func leaseOf(t *testing.T, f *farmtest.Farm, serial string) *broker.Lease {
	t.Helper()
	ls, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	for _, l := range ls {
		if l.Serial == serial {
			return &l
		}
	}
	return nil
}

// HttpRunner's flow on the protocol revision without sessions (mcp-go's default client):
// select_device, then calls naming platform and serial without a lease. They ran into the
// caller's own lease ("You hold it … pass your lease") until it expired; they run under it
// now, renewing it. Fencing holds: another holder (another client name, or the same name
// with a Corral-Caller of its own) is still refused, a lease acquire_device took still needs
// its handle (and the refusal says so), and a selection whose lease a node revoked is refused
// once as stale and then forgotten.
func TestSelectDeviceWithoutSessionRunsCallsNamingIt(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 2, Quiet: true})
	c := f.Client("hrp") // 2026-07-28: no protocol session
	selected, acquired := "n1-p1", "n1-p2"
	var sel mcp.SelectDeviceResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "select_device", map[string]any{"platform": "android", "serial": selected}), &sel)
	require.NotEmpty(t, sel.Lease.Handle)
	assert.Contains(t, sel.Message, "calls naming it without lease run under this lease")

	tap := map[string]any{"platform": "android", "serial": selected, "x": 0.5, "y": 0.3}
	for range 2 {
		farmtest.MustCall(t, c, "tap_xy", tap)
	}
	l := leaseOf(t, f, selected)
	require.NotNil(t, l, "the selection's lease is gone")
	assert.Equal(t, sel.Lease.Epoch, l.Epoch, "the calls ran under another lease than the selection's")
	assert.Equal(t, broker.HandleHash(sel.Lease.Handle), l.HandleSHA256)

	again := farmtest.MustCall(t, c, "select_device", map[string]any{"serial": selected})
	assert.Contains(t, farmtest.Text(again), "already selected by you")

	for name, other := range map[string]*client.Client{
		"another client name":           f.Client("other"),
		"the same name, its own caller": callerClient(t, f, "Corral-Caller header", "hrp"),
	} {
		res := farmtest.Call(t, other, "tap_xy", tap)
		require.True(t, res.IsError, "%s ran on the selection of hrp: %s", name, farmtest.Text(res))
		assert.Contains(t, farmtest.Text(res), "(busy)", name)
		assert.NotContains(t, farmtest.Text(res), sel.Lease.Handle, name)
	}

	var acq mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": acquired}), &acq)
	res := farmtest.Call(t, c, "tap_xy", map[string]any{"serial": acquired, "x": 0.5, "y": 0.3})
	require.True(t, res.IsError, "a call without lease ran under acquire_device's lease: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "You hold it")
	assert.Contains(t, farmtest.Text(res), "a lease acquire_device took needs its handle on every call")
	farmtest.MustCall(t, c, "tap_xy", map[string]any{"serial": acquired, "lease": acq.Lease.Handle, "x": 0.5, "y": 0.3})

	// An operator takes the selected device back: the next call is refused as stale, once.
	ans, err := f.Gateway().Client.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: selected, Force: true, By: "test"})
	require.NoError(t, err)
	require.True(t, ans.OK, "forced release: %+v", ans)
	res = farmtest.Call(t, c, "tap_xy", tap)
	require.True(t, res.IsError, "ran under a revoked lease: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "(stale_lease)")
	assert.Contains(t, farmtest.Text(res), "The selection is forgotten")
	farmtest.MustCall(t, c, "tap_xy", tap)
	assert.Nil(t, leaseOf(t, f, selected), "a call without the selection left a lease")
}

// select_device to another device gives back the lease select_device took for the previous
// one, with and without a protocol session: it kept it for 5 minutes, and release_device {}
// gave back only the new one. A lease acquire_device took stays, and so does the previous
// selection while a task of the caller runs there, as the answer says. Without a session too,
// release_device {} gives back the selection.
func TestSelectDeviceSwitchReleasesThePreviousSelection(t *testing.T) {
	for _, rev := range []string{"2026-07-28", "2025-06-18"} {
		t.Run(rev, func(t *testing.T) {
			f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 3, Quiet: true})
			c := f.ClientWithProtocol("hrp", rev)
			a, b, held := "n1-p1", "n1-p2", "n1-p3"
			var acq mcp.AcquireResult
			farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": held}), &acq)

			farmtest.MustCall(t, c, "select_device", map[string]any{"serial": a})
			res := farmtest.MustCall(t, c, "select_device", map[string]any{"serial": b})
			assert.Contains(t, farmtest.Text(res), "Released the previous selection "+a+".")
			assert.Nil(t, leaseOf(t, f, a), "the previous selection %s is still held", a)
			require.NotNil(t, leaseOf(t, f, b))
			require.NotNil(t, leaseOf(t, f, held), "select_device gave back a lease acquire_device took")

			// A task of the caller runs on the selected device: switching keeps its lease.
			slept := farmtest.Go(t, c, "sleep", map[string]any{"serial": b, "seconds": 30})
			farmtest.Eventually(t, 20*time.Second, func() bool {
				d, _ := f.Gateway().Client.Device(b)
				return d.Task != nil && d.Task.Tool == "sleep"
			}, "sleep running on %s", b)
			res = farmtest.MustCall(t, c, "select_device", map[string]any{"serial": a})
			assert.Contains(t, farmtest.Text(res), "The previous selection "+b+" keeps its lease while your sleep runs there")
			assert.NotNil(t, leaseOf(t, f, b), "released under a running task")
			_, err := f.Gateway().Client.Abort(t.Context(), broker.AbortRequest{V: broker.WireVersion, Serial: b})
			require.NoError(t, err)
			ended := (<-slept).Get(t)
			assert.True(t, ended.IsError, "the aborted sleep: %s", farmtest.Text(ended))

			// release_device {} gives back the selection, a, with or without a session, once the
			// kept b (by serial) and the acquired lease are given back.
			farmtest.MustCall(t, c, "release_device", map[string]any{"lease": acq.Lease.Handle})
			farmtest.MustCall(t, c, "release_device", map[string]any{"serial": b})
			assert.Nil(t, leaseOf(t, f, b), "release_device by serial left the kept %s held", b)
			farmtest.MustCall(t, c, "release_device", map[string]any{})
			assert.Nil(t, leaseOf(t, f, a), "release_device {} left the selection %s held", a)
		})
	}
}
