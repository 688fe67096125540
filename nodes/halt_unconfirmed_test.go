package nodes_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// An emergency_stop on a rig whose controller froze (it answers nothing) cannot have the stop
// confirmed, but the rig's driver holds the halt all the same: the answer says the halt is
// recorded and held until arm_recover, with the controller's failure, and the record says
// halted. Once the controller answers again the rig shows halted by emergency_stop. It used
// to answer "the device did not halt" with a record of halted false, though it was held.
func TestEmergencyStopOnAFrozenControllerSaysTheHaltIsHeld(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw, err := twin.Start(twin.Options{Seed: 7, Speed: 4})
	require.NoError(t, err)
	t.Cleanup(func() { _ = tw.Close() })
	f.ServeArmTwin("n1", tw)
	serial := tw.Phone.Info().Serial
	op := f.Client("operator")

	tw.GRBL.Stall(time.Hour) // frozen, as kill -STOP leaves it
	res := farmtest.Call(t, op, "emergency_stop", map[string]any{"serial": serial})
	tw.GRBL.StallUntil(time.Time{})
	msg := farmtest.Text(res)
	require.True(t, res.IsError, "the stop was confirmed by a frozen controller: %s", msg)
	assert.Contains(t, msg, "its halt is recorded and held until arm_recover")
	assert.Contains(t, msg, "the controller did not confirm the stop")
	assert.Contains(t, msg, "(it may still be moving, or its finger down: cut its power)")
	assert.NotContains(t, msg, "did not halt")

	id := regexp.MustCompile(`Recorded as task (\S+) `).FindStringSubmatch(msg)
	require.Len(t, id, 2, "no record in %q", msg)
	var rec string
	farmtest.Eventually(t, 30*time.Second, func() bool { // the record reaches the farm after the answer
		res := farmtest.Call(t, op, "get_task_result", map[string]any{"task_id": id[1]})
		rec = farmtest.Text(res)
		return !strings.Contains(rec, "unknown_task")
	}, "the emergency_stop's record")
	assert.Contains(t, rec, `"halted":true`)
	assert.Contains(t, rec, "held until arm_recover")

	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateUnhealthy
	}, "the rig halted once its controller answers")
	d, _ := f.Gateway().Client.Device(serial)
	assert.Contains(t, d.Reason, "emergency_stop")
	assert.Contains(t, d.Reason, "arm_recover")
}
