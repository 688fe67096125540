package test

import (
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// release_device without a lease gives back the lease the session holds now, whichever tool
// took it: after the selected device's lease was given back, the group acquire_device leased
// next. When the session holds several, it names them (not their handles) and releases none;
// a serial picks one.
func TestReleaseWithoutLeaseGivesBackTheSessionsLease(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3})
	c := f.ClientWithProtocol("alice", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION) // a revision with sessions
	gw := f.Gateway().Client
	devs := f.Devices()
	x := devs[0].Serial

	farmtest.MustCall(t, c, "select_device", args("serial", x))
	contains(t, farmtest.Text(farmtest.MustCall(t, c, "release_device", args())), "Released device "+x)
	var grp struct {
		Group struct {
			Handle, ID string
			Members    []struct{ Serial string }
		}
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", args("platform", "android", "count", 2)), &grp)
	require.Len(t, grp.Group.Members, 2)
	res := farmtest.MustCall(t, c, "release_device", args())
	contains(t, farmtest.Text(res), "Released group "+grp.Group.ID)
	leases, err := gw.Leases(t.Context())
	require.NoError(t, err)
	assert.Empty(t, leases, "leases left after the group's release")

	// Two leases: the selection's and one acquire_device took.
	farmtest.MustCall(t, c, "select_device", args("serial", x))
	y := leaseDevice(t, c, args("serial", devs[1].Serial))
	res = farmtest.Call(t, c, "release_device", args())
	require.True(t, res.IsError, "released one of two leases unasked: %s", farmtest.Text(res))
	contains(t, farmtest.Text(res), "holds 2 leases", "the lease of "+x+" (select_device)", "the lease of "+devs[1].Serial+" (acquire_device)")
	assert.NotContains(t, farmtest.Text(res), y.Handle)
	contains(t, farmtest.Text(farmtest.MustCall(t, c, "release_device", args("serial", devs[1].Serial))), "Released device "+devs[1].Serial)
	contains(t, farmtest.Text(farmtest.MustCall(t, c, "release_device", args())), "Released device "+x)
	res = farmtest.Call(t, c, "release_device", args())
	require.True(t, res.IsError, farmtest.Text(res))
	contains(t, farmtest.Text(res), "lease is required")
}

// A session that only acquired (selected nothing) keeps the one-device default of the tools
// that take no serial: the lease it remembers is not a selection.
func TestAcquireKeepsTheOneDeviceDefault(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	c := f.ClientWithProtocol("alice", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	serial := f.Devices()[0].Serial
	leaseDevice(t, c, args("serial", serial))
	res := farmtest.Call(t, c, "take_screenshot", args())
	require.True(t, res.IsError, "ran without the lease: %s", farmtest.Text(res))
	contains(t, farmtest.Text(res), "take_screenshot on "+serial, "You hold it")
}
