package main

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// Two nodes of one farm with --sim-ios 1 and --sim-arm 1 each show four serials, each named
// after its node (ios-sim-n1-01, arm-twin-n2-01): with ios-sim-01 and arm-twin-01 on both, a
// call by serial was ambiguous and both twins shared one stored calibration. A restarted node
// takes its names again, shows each device once (the last run's entries removed), and its twin
// finds its calibration in the farm instead of calibrating again.
func TestNodesNameTheirSimulatedIPhonesAndTwinsAfterThemselves(t *testing.T) {
	if testing.Short() {
		t.Skip("two nodes with arm twins, which calibrate at real speed; not in -short mode")
	}
	quiet := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, quiet)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "test"}, quiet)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	sims := []string{"--sim-ios", "1", "--sim-arm", "1"}
	want := map[string][]string{"n1": {"arm-twin-n1-01", "ios-sim-n1-01"}, "n2": {"arm-twin-n2-01", "ios-sim-n2-01"}}

	stop := simNode(t, ns.ClientURL(), quiet, sims...)
	simNode(t, ns.ClientURL(), quiet, append([]string{"--node-id", "n2"}, sims...)...)
	for node, serials := range want {
		assert.Equal(t, serials, onlineSerials(t, stores, node, len(serials)), "node %s's simulated iPhone and twin", node)
	}
	assert.Equal(t, []string{"n1.arm-twin-n1-01", "n2.arm-twin-n2-01"}, calibrationKeys(t, stores), "each twin's calibration kept apart")

	stop()
	logs := &logtest.Buffer{}
	simNode(t, ns.ClientURL(), slog.New(slog.NewTextHandler(logs, nil)), sims...) // n1 again
	assert.Equal(t, want["n1"], onlineSerials(t, stores, "n1", 2), "the restarted node's simulated iPhone and twin")
	assert.NotEmpty(t, logs.Line("arm rig calibration loaded from the farm"), "the restarted twin did not find its calibration")
	assert.Empty(t, logs.Line("arm rig: calibrating"), "the restarted twin calibrated again")
}

// onlineSerials waits up to 3 minutes (a twin calibrates at real speed: tens of seconds under
// -race on a loaded machine) until node has want entries, all online, and returns their
// serials, sorted.
func onlineSerials(t *testing.T, stores *broker.Stores, node string, want int) []string {
	t.Helper()
	var entries []broker.DeviceEntry
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		entries, err = entriesOf(t.Context(), stores, node)
		require.NoError(t, err)
		if len(entries) == want && !slices.ContainsFunc(entries, notOnline) {
			break
		}
	}
	require.False(t, len(entries) != want || slices.ContainsFunc(entries, notOnline),
		"node %s never had its %d devices online:%s", node, want, describe(entries))
	var serials []string
	for _, e := range entries {
		serials = append(serials, e.Serial)
	}
	slices.Sort(serials)
	return serials
}

// calibrationKeys are the keys of the rig calibrations the farm keeps (not the nodes' epoch
// floors in the same bucket), sorted.
func calibrationKeys(t *testing.T, stores *broker.Stores) []string {
	t.Helper()
	keys, err := stores.Calibrations.ListKeys(t.Context(), jetstream.IgnoreDeletes())
	require.NoError(t, err)
	var out []string
	for k := range keys.Keys() {
		if !strings.Contains(k, ".=") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
