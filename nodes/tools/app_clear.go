package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// appClear clears an app's data and cache, which stops it.
func appClear() Tool {
	return Define[PackageArgs, PackageResult](Tool{
		Name:        "app_clear",
		Description: "Clear an app's data and cache (stops it; Android only).",
		Hints:       Hints{Destructive: true, Idempotent: true},
		Timeout:     30 * time.Second,
		MaxTimeout:  5 * time.Minute,
		Profiles:    []string{HttpRunner},
		Short:       packageName,
		Needs:       []Ability{Need[device.AppClearer]("clear app data")},
	}, func(ctx context.Context, t *Task, a PackageArgs) (Output, error) {
		if err := t.Driver.(device.AppClearer).ClearApp(ctx, a.PackageName); err != nil {
			return Output{}, err
		}
		return Output{Data: PackageResult{Message: "cleared the data and cache of " + a.PackageName, PackageName: a.PackageName, Hint: hintClear}}, nil
	})
}
