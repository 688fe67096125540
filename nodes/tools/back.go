package tools

import (
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

func back() Tool {
	return Define[ActionArgs, MessageResult](Tool{Name: "back", Description: "Press BACK: Android's key, a browser's history back, an arm's edge swipe. iOS has none: use go_back.",
		Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Short: noParams,
		Needs: []Ability{Need[device.KeyPresser]("press BACK")},
	}, pressOneKey("BACK", hintAction))
}
