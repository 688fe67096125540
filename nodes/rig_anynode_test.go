package nodes_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes"
)

// A rig halted under node n1 comes back halted when it is served under another node id, n2:
// its twin joins n2 unhealthy, with the halt's reason and where it was set, and does not move
// to calibrate: it takes the calibration it had under n1. Each node reads as its own NATS user.
func TestHaltedRigStaysHaltedUnderANewNodeID(t *testing.T) {
	ctx := t.Context()
	u := newNodeUsers(t, broker.PermissionsFor, "n1", "n2")
	gw := u.gateway(ctx)
	// One rig (a twin, with a serial of its own as a rigs file gives it) moved from n1 to n2.
	const serial = "bench-arm-1"
	tw, err := twin.Start(twin.Options{Seed: 1, Serial: serial})
	require.NoError(t, err)
	t.Cleanup(func() { _ = tw.Close() })
	attachTwin := func(n *nodes.Node, log *slog.Logger) func() {
		stop, err := rig.ServeTwin(ctx, n, tw, log)
		require.NoError(t, err)
		return stop
	}
	on := func(node string) broker.DeviceEntry {
		var dev broker.DeviceEntry
		farmtest.Eventually(t, 60*time.Second, func() bool {
			var ok bool
			dev, ok = gw.Device(serial)
			// Not the stand-in of a rig calibrating at start (arm/rig calibrating.go).
			return ok && dev.Node == node && dev.State != broker.StateOffline && !strings.Contains(dev.Reason, "calibrating")
		}, "the rig on "+node)
		return dev
	}

	n1, _, err := u.start(ctx, "n1")
	require.NoError(t, err)
	stop := attachTwin(n1, slog.New(slog.DiscardHandler))
	on("n1")                                                       // calibrated, under n1
	require.NoError(t, n1.SaveHalt(ctx, serial, "emergency stop")) // as its driver does at emergency_stop
	stop()
	n1.Stop()

	n2, logs, err := u.start(ctx, "n2")
	require.NoError(t, err)
	t.Cleanup(attachTwin(n2, slog.New(logs)))
	dev := on("n2")
	assert.Equal(t, broker.StateUnhealthy, dev.State, "reason: %s", dev.Reason)
	assert.Contains(t, dev.Reason, "emergency stop")
	assert.Contains(t, dev.Reason, "halted under node n1")
	assert.False(t, logged(logs, "arm rig: calibrating"), "the halted rig moved to calibrate")
	assert.True(t, logged(logs, "rig calibration reused from another node id"), "the reuse not said")
}

// The latest word on a rig's halt wins, whichever node id said it: recovered under n2, the rig
// is not halted under n1 either, though n1's own key still holds the halt (a node may not
// write another's keys). A calibration saved under n1 is reused under n2, with a warning.
func TestRigHaltAndCalibrationAcrossNodeIDs(t *testing.T) {
	ctx := t.Context()
	u := newNodeUsers(t, broker.PermissionsFor, "n1", "n2")
	u.gateway(ctx)
	n1, _, err := u.start(ctx, "n1")
	require.NoError(t, err)
	require.NoError(t, n1.SaveHalt(ctx, "r1", "controller alarm"))
	require.NoError(t, n1.SaveCalibration(ctx, "r1", []byte(`{"rig":"r1"}`)))
	n1.Stop()

	n2, logs, err := u.start(ctx, "n2")
	require.NoError(t, err)
	why, err := n2.LoadHalt(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, "controller alarm (halted under node n1)", why)
	cal, err := n2.LoadCalibration(ctx, "r1")
	require.NoError(t, err)
	assert.JSONEq(t, `{"rig":"r1"}`, string(cal))
	assert.True(t, logged(logs, "rig calibration reused from another node id"), "the reuse not said")
	assert.False(t, logged(logs, "could not be read"), "n2 may not read n1's keys")

	require.NoError(t, n2.SaveHalt(ctx, "r1", "")) // arm_recover on n2
	why, err = n2.LoadHalt(ctx, "r1")
	require.NoError(t, err)
	assert.Empty(t, why)
	n2.Stop()
	n1, _, err = u.start(ctx, "n1")
	require.NoError(t, err)
	why, err = n1.LoadHalt(ctx, "r1")
	require.NoError(t, err)
	assert.Empty(t, why, "recovered under n2, halted again under n1")
}

func logged(logs *logtest.Recorder, part string) bool {
	for _, r := range logs.Records() {
		if strings.Contains(r.Message, part) {
			return true
		}
	}
	return false
}
