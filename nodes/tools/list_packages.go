package tools

import (
	"context"
	"slices"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// PackagesResult is list_packages' structured result (HttpRunner seed).
type PackagesResult struct {
	Packages []string `json:"packages" jsonschema:"List of installed app package names on the device"`
}

// listPackages lists the installed apps, sorted (a browser's tabs: oldest first).
func listPackages() Tool {
	return Define[NoArgs, PackagesResult](Tool{
		Name:        "list_packages",
		Description: "List installed app packages.",
		Hints:       ReadOnly,
		Timeout:     30 * time.Second,
		MaxTimeout:  2 * time.Minute,
		Profiles:    []string{HttpRunner},
		Short:       noParams,
		Needs:       []Ability{Need[device.AppManager]("list apps")},
	}, func(ctx context.Context, t *Task, _ NoArgs) (Output, error) {
		pkgs, err := t.Driver.(device.AppManager).ListPackages(ctx)
		if err != nil {
			return Output{}, err
		}
		// A browser lists its tabs oldest first, the order web_close_tab's tabIndex counts in;
		// other devices' apps have no order of their own.
		if t.Driver.Info().Platform != device.PlatformWeb {
			pkgs = slices.Sorted(slices.Values(pkgs))
		}
		if pkgs == nil {
			pkgs = []string{}
		}
		return Output{Data: PackagesResult{Packages: pkgs}}, nil
	})
}
