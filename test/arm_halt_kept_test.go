package test

import (
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// A rig's halt outlives its link and its node: after emergency_stop, the rig comes back
// halted when its link was lost and is back, and when its node restarted (a restart used to
// unlock it and show it online, moving again with no person having looked). arm_recover
// ends the halt for good: a node restart after it leaves the rig online.
func TestRigHaltOutlivesItsLinkAndNode(t *testing.T) {
	f, tw, stop := restartableArmFarm(t)
	serial := tw.Phone.Info().Serial
	op := f.Client("operator")

	farmtest.MustCall(t, op, "emergency_stop", args("serial", serial))
	waitDeviceState(t, f, serial, broker.StateUnhealthy, "the halted rig")

	stop() // the link lost, and back
	waitDeviceState(t, f, serial, broker.StateOffline, "the rig off the node")
	stop = f.ServeArmTwinAs("n1", tw, broker.StateUnhealthy)
	refusedHalted(t, f, op, serial, "emergency_stop")

	stop = restartWithRig(t, f, tw, stop, broker.StateUnhealthy)
	refusedHalted(t, f, op, serial, "emergency_stop")

	farmtest.MustCall(t, op, "arm_recover", args("serial", serial))
	waitDeviceState(t, f, serial, broker.StateOnline, "the rig after arm_recover")
	n := len(tw.Phone.InputLog())
	farmtest.MustCall(t, op, "tap", args("serial", serial, "bbox", []float64{0.4, 0.4, 0.5, 0.5}))
	tappedAt(t, tw, n, []float64{0.4, 0.4, 0.5, 0.5}, "arm_recover")

	restartWithRig(t, f, tw, stop, broker.StateOnline) // recovered for good
}

// A controller's alarm outlives the rig's node as a halt: the restarted node unlocks the
// controller to bring the finger up, but holds the rig until arm_recover.
func TestRigAlarmOutlivesItsNode(t *testing.T) {
	f, tw, stop := restartableArmFarm(t)
	serial := tw.Phone.Info().Serial
	op := f.Client("operator")

	tw.GRBL.InjectAlarm(1) // a hard limit tripped
	waitDeviceState(t, f, serial, broker.StateUnhealthy, "the rig in alarm")

	restartWithRig(t, f, tw, stop, broker.StateUnhealthy)
	refusedHalted(t, f, op, serial, "Hard limit")
	farmtest.MustCall(t, op, "arm_recover", args("serial", serial))
	waitDeviceState(t, f, serial, broker.StateOnline, "the rig after arm_recover")
}

// restartableArmFarm is a farm whose node n1 drives the twin of a rig, served so that the
// test can take it off and serve it again (stop).
func restartableArmFarm(t *testing.T) (*farmtest.Farm, *twin.Twin, func()) {
	t.Helper()
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw, err := twin.Start(twin.Options{Seed: 5, Speed: 4})
	require.NoError(t, err)
	t.Cleanup(func() { _ = tw.Close() })
	return f, tw, f.ServeArmTwin("n1", tw)
}

// restartWithRig takes the rig off n1 (stop), restarts n1 as a crash and a restart would,
// serves the rig on it again and waits until it shows state. It returns the new stop.
func restartWithRig(t *testing.T, f *farmtest.Farm, tw *twin.Twin, stop func(), state string) func() {
	t.Helper()
	serial := tw.Phone.Info().Serial
	stop()
	f.KillNode("n1")
	waitDeviceState(t, f, serial, broker.StateOffline, "the rig of the stopped node")
	f.StartNode("n1", 1)
	return f.ServeArmTwinAs("n1", tw, state)
}

func waitDeviceState(t *testing.T, f *farmtest.Farm, serial, state, what string) {
	t.Helper()
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == state
	}, what+" "+state)
}

// refusedHalted checks that the rig shows why it is halted and what to do, and refuses a tap
// with why.
func refusedHalted(t *testing.T, f *farmtest.Farm, c *client.Client, serial, why string) {
	t.Helper()
	// A rig its node serves again is unhealthy "starting" until its first health check says
	// it is halted.
	var d broker.DeviceEntry
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ = f.Gateway().Client.Device(serial)
		return strings.Contains(d.Reason, "arm_recover")
	}, "the rig's reason says arm_recover (last: %q)", &d.Reason)
	require.Contains(t, d.Reason, why)
	res := farmtest.Call(t, c, "tap", args("serial", serial, "bbox", []float64{0.4, 0.4, 0.5, 0.5}))
	require.True(t, res.IsError, "a halted rig tapped: %s", farmtest.Text(res))
	require.Contains(t, farmtest.Text(res), why)
}
