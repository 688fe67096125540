package test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// QA's HttpRunner flow on a real Android path (adb server, simulated device), with mcp-go's
// default client (2026-07-28, no protocol session) and with a session (2025-06-18):
// select_device, then the seed's calls naming platform and serial without a lease run under
// the selection's lease (without a session they were refused "You hold it" until it expired);
// selecting another device gives the Android one back (it stayed held for 5 minutes).
func TestSelectDeviceHttpRunnerFlowOnAndroid(t *testing.T) {
	for _, rev := range []string{"2026-07-28", "2025-06-18"} {
		t.Run(rev, func(t *testing.T) {
			f, _, d := androidFarm(t)
			c := f.ClientWithProtocol("hrp", rev)
			serial := d.Serial()
			farmtest.MustCall(t, c, "select_device", args("platform", "android", "serial", serial))
			for range 2 {
				farmtest.MustCall(t, c, "tap_xy", args("platform", "android", "serial", serial, "x", 0.5, "y", 0.3))
			}
			farmtest.MustCall(t, c, "get_screen_size", args("platform", "android", "serial", serial))
			require.NotNil(t, leaseNow(t, f, serial), "the selection's lease is gone")

			other := f.Devices()[0].Serial
			if other == serial {
				other = f.Devices()[1].Serial
			}
			contains(t, farmtest.Text(farmtest.MustCall(t, c, "select_device", args("serial", other))),
				"Released the previous selection "+serial+".")
			assert.Nil(t, leaseNow(t, f, serial), "the previous selection %s is still held", serial)
			farmtest.MustCall(t, c, "tap_xy", args("serial", other, "x", 0.5, "y", 0.3))
		})
	}
}

// leaseNow is the lease a node holds on serial now (nil: none).
func leaseNow(t *testing.T, f *farmtest.Farm, serial string) *broker.Lease {
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
