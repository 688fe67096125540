package tools

import (
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

func home() Tool {
	return Define[ActionArgs, MessageResult](Tool{Name: "home", Description: "Press the HOME button.", Hints: Hints{Idempotent: true},
		Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Short: noParams,
		Needs: []Ability{Need[device.KeyPresser]("press HOME")},
	}, pressOneKey("HOME", hintAction))
}
