package main

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/nodes/device"
)

// A node restarted on the same NATS data with the same --sim-android count shows its simulated
// Android devices under the same serials, named after the node (android-sim-n1-01), not
// their adb serials (127.0.0.1:<a free port>, another at each start): a serial a user saved in
// a script still names the device after a restart. The registry holds each once, online, with
// the adb serial beside it (adb_serial, for adb -s).
func TestRestartedNodeKeepsItsSimulatedAndroidSerials(t *testing.T) {
	needADB(t)
	data := t.TempDir()
	quiet := slog.New(slog.DiscardHandler)
	start := func() (*server.Server, *broker.Stores) {
		ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: data}, quiet)
		require.NoError(t, err)
		nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "test"}, quiet)
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
		require.NoError(t, err)
		return ns, stores
	}
	android := func(entries []broker.DeviceEntry) []string {
		var serials []string
		for _, e := range entries {
			if e.Platform == device.PlatformAndroid && e.Extra["adb_server"] != "" { // not a --sim phone
				serials = append(serials, e.Serial)
				assert.Regexp(t, `^127\.0\.0\.1:\d+$`, e.Extra["adb_serial"], "%s: its adb serial", e.Serial)
			}
		}
		slices.Sort(serials)
		return serials
	}
	want := []string{"android-sim-n1-01", "android-sim-n1-02"}

	ns, stores := start()
	stop := simNode(t, ns.ClientURL(), quiet, "--sim", "1", "--sim-android", "2")
	first := settledEntries(t, stores, "n1", 3)
	require.False(t, len(first) != 3 || slices.ContainsFunc(first, notOnline), "the first run's devices never all came online:%s", describe(first))
	assert.Equal(t, want, android(first))
	stop()
	ns.Shutdown()
	ns.WaitForShutdown()

	ns, stores = start() // as corral up again on its --data
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	simNode(t, ns.ClientURL(), quiet, "--sim", "1", "--sim-android", "2")
	again := settledEntries(t, stores, "n1", 3)
	assert.False(t, len(again) != 3 || slices.ContainsFunc(again, notOnline),
		"after the restart the registry holds other entries than the node's 3 devices, online:%s", describe(again))
	assert.Equal(t, want, android(again), "the restarted node's simulated Android devices took other serials")
}
