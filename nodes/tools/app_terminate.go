package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/internal/redact"
	"github.com/corral-farm/corral/nodes/device"
)

// appTerminate force-stops an app.
func appTerminate() Tool {
	return Define[AppArgs, MessageResult](Tool{
		Name:        "app_terminate",
		Description: "Stop an app (force-stop).",
		Hints:       Hints{Destructive: true, Idempotent: true},
		Timeout:     30 * time.Second,
		MaxTimeout:  2 * time.Minute,
		Profiles:    []string{HttpRunner},
		Short:       packageName,
		Needs:       []Ability{Need[device.AppManager]("manage apps").Else("force_quit swipes the app in front away")},
	}, func(ctx context.Context, t *Task, a AppArgs) (Output, error) {
		if err := t.Driver.(device.AppManager).TerminateApp(ctx, a.PackageName); err != nil {
			return Output{}, err
		}
		return Output{Data: MessageResult{Message: "terminated " + redact.PageURL(a.PackageName), Hint: hintAction}}, nil
	})
}
