package test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// failingTap is the model's turn that taps the clock, its phone made to fail the next device
// operation (with err; sim.ErrInjected when nil) while the model answers: the tap fails on the
// device.
func failingTap(phone func() *sim.Phone, err error) modelsim.Turn {
	return modelsim.Turn{Reply: func(modelsim.Request) modelsim.Turn {
		phone().FailNext(err)
		return call("tap_xy", `{"x":0.5,"y":0.13}`)
	}}
}

// A device that fails inside an agent's step (its driver's error, a rig halted) is the
// device's failure, not the model's: ai_action and run_agent_task end at once and answer the
// code the device's tool would have (driver_error, unhealthy), where a model's failure has no
// code; the model is not asked again.
func TestAgentTaskFailedByItsDeviceSaysTheDevicesCode(t *testing.T) {
	halted := fmt.Errorf("the rig is halted: %w", device.ErrUnavailable)
	for _, tc := range []struct {
		tool, arg string
		err       error
		code      string
	}{
		{"ai_action", "prompt", nil, "driver_error"},
		{"run_agent_task", "goal", halted, "unhealthy"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			var f *farmtest.Farm
			var serial string
			phone := func() *sim.Phone { return f.Phone(serial) }
			f, srv, serial := agentFarm(t,
				call("plan", `{"steps":[{"title":"Open the clock"}]}`),
				failingTap(phone, tc.err),
				call("step_done", `{"status":"failed","summary":"the tap failed"}`), // not reached
			)
			res, err := farmtest.TryCall(t, f.Client("agent"), tc.tool, args("serial", serial, tc.arg, "open the clock"))
			require.NoError(t, err)
			require.True(t, res.IsError, farmtest.Text(res))
			contains(t, farmtest.Text(res), tc.tool+" on "+serial+" failed ("+tc.code+"): ", "tap_xy failed on the device")
			assert.Len(t, srv.Requests(), 2, "the model was asked again after the device failed")
		})
	}
}

// A screen that cannot be read ends an agent task on its device too: ai_action answers the
// code of peek's failure.
func TestAIActionThatCannotReadTheScreenSaysTheDevicesCode(t *testing.T) {
	f, srv, serial := agentFarm(t, call("plan", `{"steps":[{"title":"Open the clock"}]}`))
	f.Phone(serial).FailNext(nil)
	res, err := farmtest.TryCall(t, f.Client("agent"), "ai_action", args("serial", serial, "prompt", "open the clock"))
	require.NoError(t, err)
	require.True(t, res.IsError, farmtest.Text(res))
	contains(t, farmtest.Text(res), "ai_action on "+serial+" failed (driver_error): ", "looking at the screen", sim.ErrInjected.Error())
	assert.Empty(t, srv.Requests(), "the model was asked about a screen not read")
}
