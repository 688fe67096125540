package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A locked Android device that its node did not start (a real phone, for all the node knows)
// and has no passcode for is refused unconfigured for that device only: passcodes go by serial,
// so the answer says so and offers the other devices, the simulated phone of the same node
// included, which then unlocks. (The AI tools' missing model stays node-wide:
// unconfigured_test.go.)
func TestUnlockWithoutPasscodeIsThisDevicesConfiguration(t *testing.T) {
	tool(t, "adb")
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1})
	_, devs := f.StartAndroid("n1", 1) // attached without passcodes: the node knows none
	serial := devs[0].Serial()
	until(t, func() bool { return state(f, devs[0]) == broker.StateOnline }, "%s online", serial)
	c := f.Client("agent")

	farmtest.MustCall(t, c, "press_button", args("serial", serial, "button", "POWER"))
	res := farmtest.Call(t, c, "unlock_phone", args("serial", serial))
	require.True(t, res.IsError, farmtest.Text(res))
	text := farmtest.Text(res)
	lead := fmt.Sprintf("unlock_phone on %s refused (unconfigured): unlock_phone cannot run on %s: "+
		"its node n1 has no configuration for this device (not for its platform or node): device %s: ", serial, serial, serial)
	require.True(t, strings.HasPrefix(text, lead), "the answer does not lead with the device's configuration:\n%s", text)
	contains(t, text, "--passcodes", "CORRAL_PASSCODES", serial+`: "PASSCODE"`,
		"; other devices that can, if their node is configured for them: ", "n1-p1 (android, ", "n2-p1 (android, ")
	for _, wrong := range []string{"none of that node's devices", "no other device in this farm can", "devices on other nodes"} {
		assert.NotContains(t, text, wrong, "a passcode is per device, not per node")
	}

	var rec struct{ Outcome, Code string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true)), &rec)
	assert.Equal(t, "refused", rec.Outcome, "the task's record")
	assert.Equal(t, "unconfigured", rec.Code, "the task's record")

	// The device of the same node and platform that the answer offers does unlock.
	farmtest.MustCall(t, c, "press_button", args("serial", "n1-p1", "button", "POWER"))
	var ok struct{ Unlocked, PasscodeEntered bool }
	farmtest.Structured(t, farmtest.MustCall(t, c, "unlock_phone", args("serial", "n1-p1")), &ok)
	assert.True(t, ok.Unlocked && ok.PasscodeEntered, "unlock_phone on n1-p1: %+v", ok)
}
