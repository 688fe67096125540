package test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/ios/iossim"
)

// usbmuxd killed and started again at once on the same address, listing the iPhones only after
// its first device list (as a restarted `corral sim ios`, or a real usbmuxd, does): the lease
// on ios-sim-02 survives, a call with it says to retry meanwhile, and works once the phone is
// listed again. Before, the node took the first list's word: "stale_lease: … revoked …
// (device offline: device disconnected)".
func TestIOSLeaseSurvivesAQuickUsbmuxdRestart(t *testing.T) {
	f, sims := iosFarm(t, 2)
	c := f.Client("agent")
	const serial = "ios-sim-02"
	l := acquire(t, c, args("serial", serial))
	tap := args("serial", serial, "lease", l.Lease.Handle, "x", 0.5, "y", 0.5)
	addr := sims.Addr()
	require.NoError(t, sims.Close()) // kill -9
	host, err := iossim.Start(addr, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = host.Close() })
	farmtest.Eventually(t, 10*time.Second, func() bool {
		res, err := farmtest.TryCall(t, c, "tap_xy", tap)
		require.NoError(t, err)
		require.NotContains(t, farmtest.Text(res), "stale_lease")
		return res.IsError && strings.Contains(farmtest.Text(res), "does not list the iPhone yet")
	}, "the node listening on the new usbmuxd, the phone not listed yet")
	host.Attach(sims.Devices()[1].Device)
	farmtest.Eventually(t, 10*time.Second, func() bool {
		res, err := farmtest.TryCall(t, c, "tap_xy", tap)
		require.NoError(t, err)
		require.NotContains(t, farmtest.Text(res), "stale_lease")
		return !res.IsError
	}, "a tap with the lease once the phone is listed again")
	farmtest.MustCall(t, c, "release_device", args("lease", l.Lease.Handle))
}
