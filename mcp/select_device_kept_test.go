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

// select_device to another device while a task of the caller runs on the selected one keeps
// that lease, and the answer says to release_device it by serial once the task ends. That
// found no lease ("this session holds no lease of A") though list_leases showed it the
// caller's, and the device stayed held 5 minutes. Now it is recorded with the caller's leases:
// release_device by serial gives it back, with or without a session; a refusal of a serial
// the caller holds no lease of names the ones it holds and what release_device {} would do,
// and without a session does not speak of a session.
func TestSelectDeviceSwitchKeptLeaseIsReleasable(t *testing.T) {
	for _, rev := range []string{"2025-06-18", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 3, Quiet: true})
			c := f.ClientWithProtocol("hrp", rev)
			a, b, free := "n1-p1", "n1-p2", "n1-p3"

			farmtest.MustCall(t, c, "select_device", map[string]any{"serial": a})
			slept := farmtest.Go(t, c, "sleep", map[string]any{"serial": a, "seconds": 30})
			farmtest.Eventually(t, 20*time.Second, func() bool {
				d, _ := f.Gateway().Client.Device(a)
				return d.Task != nil && d.Task.Tool == "sleep"
			}, "sleep running on %s", a)
			var sel mcp.SelectDeviceResult
			farmtest.Structured(t, farmtest.MustCall(t, c, "select_device", map[string]any{"serial": b}), &sel)
			assert.Contains(t, sel.Message, "The previous selection "+a+" keeps its lease while your sleep runs there")
			assert.Contains(t, sel.Message, `release_device {"serial":"`+a+`"} gives it back`)
			_, err := f.Gateway().Client.Abort(t.Context(), broker.AbortRequest{V: broker.WireVersion, Serial: a})
			require.NoError(t, err)
			(<-slept).Get(t)
			require.NotNil(t, leaseOf(t, f, a), "the kept lease of %s ended before release_device", a)

			res := farmtest.Call(t, c, "release_device", map[string]any{"serial": free})
			require.True(t, res.IsError, "released %s, which no one holds: %s", free, farmtest.Text(res))
			text := farmtest.Text(res)
			assert.Contains(t, text, "no lease of "+free)
			assert.Contains(t, text, "you hold leases of "+a+", "+b)
			assert.Contains(t, text, "release_device {} refuses, naming the 2 it knows: pass serial")

			res = farmtest.Call(t, c, "release_device", map[string]any{})
			require.True(t, res.IsError, "release_device {} chose one of two leases: %s", farmtest.Text(res))
			assert.Contains(t, farmtest.Text(res), "the lease of "+a+" (an earlier select_device)")
			if rev == "2026-07-28" {
				assert.NotContains(t, text, "session holds")
				assert.Contains(t, text, "a connection without protocol session")
			}

			res = farmtest.MustCall(t, c, "release_device", map[string]any{"serial": a})
			assert.Contains(t, farmtest.Text(res), "Released device "+a+".")
			assert.Nil(t, leaseOf(t, f, a), "release_device by serial left the kept lease of %s", a)
			farmtest.MustCall(t, c, "release_device", map[string]any{})
			assert.Nil(t, leaseOf(t, f, b), "release_device {} left the selection %s held", b)
		})
	}
}

// A sessionless caller's selection revoked by an operator: the next call naming the device
// was refused with the node's words for a lease the caller passed ("the lease you passed …
// Call acquire_device again") and then the gateway's ("Call select_device again"). It passed
// none: one message now says what became of the selection's lease and what to do.
func TestSelectionRevokedIsOneMessage(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	c := f.Client("hrp")
	serial := "n1-p1"
	farmtest.MustCall(t, c, "select_device", map[string]any{"serial": serial})
	ans, err := f.Gateway().Client.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Force: true, By: "test"})
	require.NoError(t, err)
	require.True(t, ans.OK, "forced release: %+v", ans)
	res := farmtest.Call(t, c, "tap_xy", map[string]any{"serial": serial, "x": 0.5, "y": 0.3})
	require.True(t, res.IsError, "ran under a revoked lease: %s", farmtest.Text(res))
	text := farmtest.Text(res)
	assert.Contains(t, text, "(stale_lease)")
	assert.Contains(t, text, "the lease select_device took for "+serial+" was revoked at ")
	assert.Contains(t, text, "call select_device again to hold "+serial)
	assert.NotContains(t, text, "you passed")
	assert.NotContains(t, text, "acquire_device")
	assert.NotContains(t, text, "Call select_device again")
}

// corral call connects anew for every call, with a fresh Corral-Caller: another holder, which
// the selection does not serve. select_device told it "calls naming it without lease run
// under this lease", and the next corral call was refused busy for 5 minutes. It says to
// export CORRAL_LEASE now, and a call of another corral-cli caller passing that lease runs.
func TestSelectDeviceForCorralCallSaysExportLease(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	serial := "n1-p1"
	var sel mcp.SelectDeviceResult
	farmtest.Structured(t, farmtest.MustCall(t, callerClient(t, f, "Corral-Caller header", "corral-cli"),
		"select_device", map[string]any{"serial": serial}), &sel)
	assert.Contains(t, sel.Message, "export CORRAL_LEASE="+sel.Lease.Handle)
	assert.NotContains(t, sel.Message, "calls naming it without lease run under this lease")

	next := callerClient(t, f, "Corral-Caller header", "corral-cli") // the next corral call
	farmtest.MustCall(t, next, "tap_xy", map[string]any{"serial": serial, "lease": sel.Lease.Handle, "x": 0.5, "y": 0.3})
	farmtest.MustCall(t, next, "release_device", map[string]any{"serial": serial, "lease": sel.Lease.Handle})
	assert.Nil(t, leaseOf(t, f, serial))

	// Another client keeps the words for clients that keep their connection.
	res := farmtest.MustCall(t, f.Client("hrp"), "select_device", map[string]any{"serial": serial})
	assert.Contains(t, farmtest.Text(res), "calls naming it without lease run under this lease")
	assert.NotContains(t, farmtest.Text(res), "CORRAL_LEASE")
}
