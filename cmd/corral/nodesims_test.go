package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/device"
)

// needADB skips a test without the adb tool, which --sim-android runs as its private server
// (or fails it if CORRAL_REQUIRE_TOOLS is set); -short skips it too.
func needADB(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test with the real adb server; not in -short mode")
	}
	if _, err := exec.LookPath("adb"); err != nil {
		const why = "the adb tool is not installed (Debian: apt-get install adb)"
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s, and CORRAL_REQUIRE_TOOLS is set", why)
		}
		t.Skip(why)
	}
}

// simNode starts node n1 as `corral node` does, with args, on the NATS at url; it is stopped
// when the test ends if the test has not stopped it.
func simNode(t *testing.T, url string, log *slog.Logger, args ...string) func() {
	t.Helper()
	f := newFlags("node")
	s := f.nodeFlags(0, platforms())
	require.NoError(t, f.parse(append([]string{"--node-id", "n1", "--adb", "off", "--usbmuxd", "off"}, args...)))
	require.NoError(t, s.check())
	n, err := startClaimedNode(t.Context(), broker.ConnectOptions{URL: url}, s, newRegistry(), log)
	require.NoError(t, err)
	stop := sync.OnceFunc(n.stop)
	t.Cleanup(stop)
	return stop
}

// entriesOf reads node's registry entries from the store.
func entriesOf(ctx context.Context, stores *broker.Stores, node string) ([]broker.DeviceEntry, error) {
	w, err := stores.Registry.WatchFiltered(ctx, []string{node + ".*"}, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer func() { _ = w.Stop() }()
	var out []broker.DeviceEntry
	for e := range w.Updates() {
		if e == nil {
			break
		}
		var d broker.DeviceEntry
		if err := json.Unmarshal(e.Value(), &d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// settledEntries reads node's entries until they are want entries, all online, or 30 s have
// passed; it returns the last it read.
func settledEntries(t *testing.T, stores *broker.Stores, node string, want int) []broker.DeviceEntry {
	t.Helper()
	var entries []broker.DeviceEntry
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var err error
		entries, err = entriesOf(t.Context(), stores, node)
		require.NoError(t, err)
		if len(entries) == want && !slices.ContainsFunc(entries, notOnline) {
			break
		}
	}
	return entries
}

func notOnline(e broker.DeviceEntry) bool { return e.State != broker.StateOnline }

// describe lists entries for a failure message.
func describe(entries []broker.DeviceEntry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString("\n  " + e.Serial + " " + e.Platform + " " + e.State + " tags=" + strings.Join(e.Tags, ",") + " " + e.Reason)
	}
	return b.String()
}

// A node restarted with --sim-android N leaves no offline ghost of the devices of its last run
// (their serials are taken again, TestRestartedNodeKeepsItsSimulatedAndroidSerials): the registry, which
// the hub and `corral devices` show, holds only the devices it has now. Its devices carry the
// tag sim, and its ready line counts them with the --sim phones.
func TestRestartedNodeLeavesNoGhostsOfItsSimulatedAndroidDevices(t *testing.T) {
	needADB(t)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "test"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	logs := &logtest.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	args := []string{"--sim", "1", "--sim-android", "2"}

	stop := simNode(t, ns.ClientURL(), log, args...)
	first := settledEntries(t, stores, "n1", 3)
	require.Len(t, first, 3, "the first run's devices never all came online:%s", describe(first))
	require.False(t, slices.ContainsFunc(first, notOnline), "the first run's devices never all came online:%s", describe(first))
	stop()

	simNode(t, ns.ClientURL(), log, args...)
	entries := settledEntries(t, stores, "n1", 3)
	assert.Equal(t, 3, len(entries), "after the restart the registry holds other entries than the node's 3 devices (before it:%s):%s",
		describe(first), describe(entries))
	assert.False(t, slices.ContainsFunc(entries, notOnline), "after the restart a device is not online:%s", describe(entries))
	for _, e := range entries {
		assert.Contains(t, e.Tags, "sim", "%s (%s) is simulated", e.Serial, e.Platform)
	}
	assert.True(t, slices.ContainsFunc(entries, func(e broker.DeviceEntry) bool { return e.Platform == device.PlatformAndroid }),
		"no Android device:%s", describe(entries))
	assert.Equal(t, 2, strings.Count(logs.String(), `msg="node ready" node=n1 simulated=3 simulated_by.sim=1 simulated_by.sim-android=2`),
		"each start's ready line counts every simulated device:\n%s", logs)
}
