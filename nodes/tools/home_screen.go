package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// PhysiClaw's navigation tools (home_screen, go_back, force_quit): fixed system gestures, no
// bbox.

func homeScreen() Tool {
	return Define[ActionArgs, MessageResult](Tool{Name: "home_screen", Description: "Go to the home screen (PhysiClaw name for HOME): a known starting point.",
		Hints: Hints{Idempotent: true}, Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{PhysiClaw}, Step: StepObject, Short: noParams,
		Needs: []Ability{Need[device.KeyPresser]("press HOME")},
	}, func(ctx context.Context, t *Task, a ActionArgs) (Output, error) {
		return pressOneKey("HOME", homeHint(t.Driver))(ctx, t, a)
	})
}

// homeHint is the next step on d's home screen: a browser's is its home page, without icons.
func homeHint(d device.Driver) string {
	if d.Info().Platform == device.PlatformWeb {
		return hintHomeWeb
	}
	return hintHome
}
