package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// appUninstall removes an app and its data.
func appUninstall() Tool {
	return Define[PackageArgs, PackageResult](Tool{
		Name:        "app_uninstall",
		Description: "Uninstall an app and its data.",
		Hints:       Hints{Destructive: true, Idempotent: true},
		Timeout:     time.Minute,
		MaxTimeout:  5 * time.Minute,
		Profiles:    []string{HttpRunner},
		Short:       packageName,
		Needs:       []Ability{Need[device.AppInstaller]("uninstall apps")},
	}, func(ctx context.Context, t *Task, a PackageArgs) (Output, error) {
		if err := t.Driver.(device.AppInstaller).UninstallApp(ctx, a.PackageName); err != nil {
			return Output{}, err
		}
		return Output{Data: PackageResult{Message: "uninstalled " + a.PackageName, PackageName: a.PackageName, Hint: hintUninstall}}, nil
	})
}
