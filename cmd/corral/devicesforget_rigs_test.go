package main

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// corral devices forget --node ID also removes the gone node's rig calibrations, and the
// running gateway, which declared the node lost, stops saying so: corral_node_lost{node} kept
// CorralNodeLost paging until every gateway restarted. What the node's id still means for a rig
// that lives on stays: its halt (a rig halted comes back halted under any node id), a
// calibration of a rig another node serves now, and the node's epoch floor.
func TestDevicesForgetRemovesCalibrationsAndClearsTheLoss(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Quiet: true, Auth: true})
	admin := broker.UserName(broker.RoleAdmin, "")
	forget := func() (int, string) {
		var code int
		out := captureOutput(t, func() {
			code = realMain([]string{"devices", "forget", "--node", "n2", "--nats-context", f.Context(admin), "--timeout", "20s"})
		})
		return code, out
	}

	// What node n2 wrote of its rigs, as its own NATS user: rig1's calibration and halt, and
	// a calibration of n1-p1, the device node n1 serves now.
	nc, err := broker.Connect(f.Connect(broker.UserName(broker.RoleNode, "n2"), "n2-rigs"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	cals, err := js.KeyValue(t.Context(), broker.CalibrationBucket)
	require.NoError(t, err)
	for key, value := range map[string]string{
		broker.CalibrationKey("n2", "rig1"):  `{"rig":"rig1"}`,
		broker.HaltKey("n2", "rig1"):         "halted by emergency_stop from ops at 12:00",
		broker.CalibrationKey("n2", "n1-p1"): `{"rig":"n1-p1"}`,
	} {
		_, err := cals.Put(t.Context(), key, []byte(value))
		require.NoError(t, err)
	}
	_, err = cals.Get(t.Context(), broker.EpochFloorKey("n2"))
	require.NoError(t, err, "node n2 wrote no epoch floor at its start")

	metrics := func() string {
		resp, err := http.Get(f.Gateway().HTTP.URL + "/metrics")
		require.NoError(t, err)
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}
	const lostN2 = `corral_node_lost{node="n2"}`
	f.KillNode("n2")
	farmtest.Eventually(t, 20*time.Second, func() bool { return strings.Contains(metrics(), lostN2+" 1") },
		"the gateway never declared n2 lost")

	var out string
	for deadline := time.Now().Add(20 * time.Second); ; { // until n2's claim expires
		var code int
		if code, out = forget(); code == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "n2 was not forgotten once it was gone: %s", out)
	}
	assert.Contains(t, out, "Removed 1 offline device(s) of node n2")
	assert.Contains(t, out, "Removed 1 rig calibration(s) of node n2 from corral_calibrations: rig1;")
	assert.Contains(t, out, "Kept the calibrations of rigs another node serves now: n1-p1 (node n1 serves it now).")
	assert.Contains(t, out, "Kept the halts of rig1 in corral_calibrations")
	assert.Contains(t, out, "no longer show node n2 lost")

	_, err = cals.Get(t.Context(), broker.CalibrationKey("n2", "rig1"))
	assert.ErrorIs(t, err, jetstream.ErrKeyNotFound, "the forgotten node's calibration of rig1 is still there")
	for _, kept := range []string{broker.HaltKey("n2", "rig1"), broker.CalibrationKey("n2", "n1-p1"), broker.EpochFloorKey("n2")} {
		_, err = cals.Get(t.Context(), kept)
		assert.NoError(t, err, "%s was removed", kept)
	}

	farmtest.Eventually(t, 10*time.Second, func() bool { return !strings.Contains(metrics(), lostN2) },
		"the running gateway still shows n2 lost after it was forgotten")
	m := metrics()
	assert.Contains(t, m, `corral_node_lost{node="n1"} 0`, "the other node's series went too")
	assert.NotContains(t, m, `corral_node_up{node="n2"}`)
}
