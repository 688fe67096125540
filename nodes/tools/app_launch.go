package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/internal/redact"
	"github.com/corral-farm/corral/nodes/device"
)

// appLaunch starts an app, or brings it to the front.
func appLaunch() Tool {
	return Define[AppArgs, MessageResult](Tool{
		Name:        "app_launch",
		Description: "Launch an app or bring it to the front.",
		Hints:       Hints{Idempotent: true},
		Timeout:     30 * time.Second,
		MaxTimeout:  2 * time.Minute,
		Profiles:    []string{HttpRunner},
		Step:        StepObject,
		Short:       packageName,
		Needs: []Ability{Need[device.AppManager]("manage apps").Else(
			"swipe_to_tap_app, given the app's name as its home screen shows it, finds its icon and taps it")},
	}, func(ctx context.Context, t *Task, a AppArgs) (Output, error) {
		if err := t.Driver.(device.AppManager).LaunchApp(ctx, a.PackageName); err != nil {
			return Output{}, withShown(err, a.PackageName, redact.PageURL(a.PackageName))
		}
		return Output{Data: MessageResult{Message: "launched " + redact.PageURL(a.PackageName) + dialogNote(t), Hint: hintLaunch}}, nil
	})
}
