package tools

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// ForegroundAppResult is get_foreground_app's structured result.
type ForegroundAppResult struct {
	PackageName string `json:"packageName" jsonschema:"Package (bundle id) of the app in front"`
	Message     string `json:"message" jsonschema:"What is in front: an app, the home screen or the system UI"`
}

// getForegroundApp names the app in front, as HttpRunner's foreground-app query does; drivers
// that implement device.ForegroundReporter answer it.
func getForegroundApp() Tool {
	return Define[NoArgs, ForegroundAppResult](Tool{
		Name:        "get_foreground_app",
		Description: "Get the package name of the app in front.",
		Hints:       ReadOnly,
		Timeout:     10 * time.Second,
		MaxTimeout:  time.Minute,
		// Not in the httprunner profile: HttpRunner's seed has no such tool (mcp/profiles.go).
		// --tools all, or a list of names, serves it.
		Short: noParams,
		Needs: []Ability{Need[device.ForegroundReporter]("tell which app is in front")},
	}, func(ctx context.Context, t *Task, _ NoArgs) (Output, error) {
		pkg, err := t.Driver.(device.ForegroundReporter).ForegroundApp(ctx)
		if err != nil {
			return Output{}, err
		}
		pkg = strings.TrimSpace(pkg)
		msg := pkg + " is in front"
		switch {
		case pkg == "":
			// A browser device with its last tab closed: the phones name an app (a launcher, the
			// system UI) or fail.
			msg = "nothing is in front: no app is open (on a browser device, no tab); app_launch opens one"
		case slices.Contains(systemPackages, pkg):
			msg = "the system UI (" + pkg + ") is in front: the phone may be locked or a system dialog open"
		case isHomeApp(pkg):
			msg = "the home screen (" + pkg + ") is in front"
		}
		return Output{Data: ForegroundAppResult{PackageName: pkg, Message: msg}}, nil
	})
}
