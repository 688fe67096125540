package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// armRecover brings a rig out of an alarm, after a person has looked at it.
func armRecover() Tool {
	return Define[ActionArgs, MessageResult](Tool{Name: "arm_recover", Description: "Bring an arm rig out of an alarm (a tripped limit switch, a reset in mid-move, a soft limit) or an emergency_stop: " +
		"reset and unlock its controller, the finger up. Gestures are refused meanwhile; something stopped the machine, so have a person look at the rig first.",
		Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute, Short: noParams,
		Needs: []Ability{Need[device.AlarmRecoverer]("recover from an alarm")},
	}, func(ctx context.Context, t *Task, _ ActionArgs) (Output, error) {
		if err := t.Driver.(device.AlarmRecoverer).Recover(ctx); err != nil {
			return Output{}, err
		}
		return Output{Data: MessageResult{Message: "recovered: the controller is unlocked and the finger up",
			Hint: "if taps land beside their targets now (a hard limit may have cost the position), run arm_calibrate"}}, nil
	})
}
