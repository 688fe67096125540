package tools

import (
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

func back() Tool {
	return Define[ActionArgs, MessageResult](Tool{Name: "back", Description: "Press BACK (not on iOS: go_back).",
		Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Short: noParams,
		Needs: []Ability{Need[device.KeyPresser]("press BACK")},
	}, pressOneKey("BACK", hintAction))
}
