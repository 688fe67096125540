package mcp_test

import (
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// After select_device, a call that names the selected serial without a lease runs under the
// selection's lease, as one without serial does: HttpRunner clients send platform and serial
// on every call, and were refused busy ("You hold it") by their own selection. A lease the
// call passes still wins, and another device is not run under the selection's lease.
func TestSelectedSerialNamedWithoutLeaseUsesTheSelection(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 2, Quiet: true})
	c := f.ClientWithProtocol("hrp", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	selected, other := "n1-p1", "n1-p2"
	var sel mcp.SelectDeviceResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "select_device", map[string]any{"serial": selected}), &sel)
	require.NotEmpty(t, sel.Lease.Handle)

	farmtest.MustCall(t, c, "tap_xy", map[string]any{"x": 0.5, "y": 0.5})
	farmtest.MustCall(t, c, "tap_xy", map[string]any{"serial": selected, "x": 0.5, "y": 0.5})
	farmtest.MustCall(t, c, "tap_xy", map[string]any{"platform": "android", "serial": selected, "x": 0.5, "y": 0.5})
	farmtest.MustCall(t, c, "tap_xy", map[string]any{"serial": selected, "lease": sel.Lease.Handle, "x": 0.5, "y": 0.5})

	res := farmtest.Call(t, c, "tap_xy", map[string]any{"serial": selected, "lease": "lease_aaaaaaaaaaaaaaaaaaaaaaaaaa", "x": 0.5, "y": 0.5})
	assert.True(t, res.IsError, "a wrong lease passed for the selected device ran: %s", farmtest.Text(res))

	// Another, free device runs under a one-call lease of its own, not the selection's.
	farmtest.MustCall(t, c, "tap_xy", map[string]any{"serial": other, "x": 0.5, "y": 0.5})
	var st mcp.DeviceStatusResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_device_status", map[string]any{"serial": other}), &st)
	assert.Empty(t, st.Holder, "%s is held after a call without a lease", other)
}

// Another session of the same client naming the selected device without a lease is still
// refused busy, and told how corral call passes a handle without being given it.
func TestOtherSessionNamingTheSelectedSerialIsRefused(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	first := f.ClientWithProtocol("hrp", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	second := f.ClientWithProtocol("hrp", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	var sel mcp.SelectDeviceResult
	farmtest.Structured(t, farmtest.MustCall(t, first, "select_device", map[string]any{"serial": "n1-p1"}), &sel)

	res := farmtest.Call(t, second, "tap_xy", map[string]any{"serial": "n1-p1", "x": 0.5, "y": 0.5})
	require.True(t, res.IsError, "another session ran on the selection: %s", farmtest.Text(res))
	text := farmtest.Text(res)
	assert.Contains(t, text, "another session of")
	assert.Contains(t, text, "(corral call: export CORRAL_LEASE=<handle>)")
	assert.NotContains(t, text, "$CORRAL_LEASE")
	assert.NotContains(t, text, sel.Lease.Handle)
}
