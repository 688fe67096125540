package test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// Refusals that name the caller's own mistake: a platform typo is refused with the known
// platforms (not answered with an empty list), emergency_stop without serial says serial is
// required, and a call without lease on a device the caller holds says the caller holds it
// (not "busy, held by" the caller, with advice to queue behind itself), without the handle.
func TestGatewayRefusalsNameTheCallersMistake(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2})
	c := f.Client("alice")
	serial := f.Devices()[0].Serial

	for _, tool := range []string{"list_available_devices", "list_leases", "acquire_device"} {
		res := farmtest.Call(t, c, tool, args("platform", "andriod"))
		require.True(t, res.IsError, "%s with platform andriod: %s", tool, farmtest.Text(res))
		contains(t, farmtest.Text(res), `unknown platform "andriod"`, `did you mean "android"?`, "android, arm, ios, web")
	}

	res := farmtest.Call(t, c, "emergency_stop", args())
	require.True(t, res.IsError, farmtest.Text(res))
	contains(t, farmtest.Text(res), "serial is required")

	l := leaseDevice(t, c, args("serial", serial))
	res = farmtest.Call(t, c, "get_screen_size", args("serial", serial))
	require.True(t, res.IsError, "a call without the lease ran: %s", farmtest.Text(res))
	text := farmtest.Text(res)
	contains(t, text, "You hold it", "pass your lease")
	assert.NotContains(t, text, "queue for it", "told to queue behind itself")
	assert.NotContains(t, text, l.Handle, "the refusal shows the handle")
	farmtest.MustCall(t, c, "get_screen_size", args("serial", serial, "lease", l.Handle))

	// Someone else is still told who holds it and how to queue.
	res = farmtest.Call(t, f.Client("bob"), "get_screen_size", args("serial", serial))
	require.True(t, res.IsError, farmtest.Text(res))
	contains(t, farmtest.Text(res), "Held by anonymous (alice)", "queue for it")
}
