package tools

import (
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// PhysiClaw's navigation tools (home_screen, go_back, force_quit): fixed system gestures, no
// bbox.

func homeScreen() Tool {
	return Define[ActionArgs, MessageResult](Tool{Name: "home_screen", Description: "Go to the home screen (PhysiClaw name for HOME): a known starting point.",
		Hints: Hints{Idempotent: true}, Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{PhysiClaw}, Step: StepObject, Short: noParams,
		Needs: []Ability{Need[device.KeyPresser]("press HOME")},
	}, pressOneKey("HOME", hintHome))
}
