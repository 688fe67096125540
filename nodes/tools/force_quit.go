package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// ForceQuitResult is force_quit's structured result.
type ForceQuitResult struct {
	Message     string `json:"message" jsonschema:"What was quit"`
	PackageName string `json:"packageName" jsonschema:"The app that was in front (package or bundle id); empty if the device cannot tell (an arm) or none was"`
	Quit        bool   `json:"quit" jsonschema:"False when no app was in front (the home screen was, or nothing is open)"`
	Hint        string `json:"hint"`
}

// homeKnower is a device that knows its own home screen by the app it reports there (a
// browser: its home page, --web-home), which a name cannot tell.
type homeKnower interface {
	IsHome(app string) bool
}

// ownHome says whether the device reports app as its own home screen.
func ownHome(drv device.Driver, app string) bool {
	h, ok := drv.(homeKnower)
	return ok && h.IsHome(app)
}

// forceQuit stops the app in front and goes to the home screen, as PhysiClaw's app-switcher
// gesture does.
func forceQuit() Tool {
	const doing = "force-quit the app in front"
	return Define[ActionArgs, ForceQuitResult](Tool{Name: "force_quit", Description: "Force-quit the app in front and go to the home screen: a hard reset when go_back cannot reach the right place. " +
		"The app's unsaved state is lost.", Hints: Hints{Destructive: true},
		Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{PhysiClaw}, Short: noParams,
		Needs: []Ability{Need[device.ForegroundReporter](doing).Or(Need[device.FrontAppQuitter](doing)),
			Need[device.AppManager](doing).Or(Need[device.FrontAppQuitter](doing))},
		Uses: []Ability{Need[device.KeyPresser]("press HOME after quitting")},
	}, func(ctx context.Context, t *Task, _ ActionArgs) (Output, error) {
		fg, named := t.Driver.(device.ForegroundReporter)
		_, stops := t.Driver.(device.AppManager)
		if !named || !stops {
			if err := t.Driver.(device.FrontAppQuitter).QuitFrontApp(ctx); err != nil {
				return Output{}, err
			}
			hint := hintForceQuit
			if !stops { // an arm: no app_launch
				hint = hintForceQuitTap
			}
			return Output{Data: ForceQuitResult{Message: "swiped the app in front away in the app switcher and went to the home screen (this device cannot tell which app it was)",
				Quit: true, Hint: hint}}, nil
		}
		pkg, err := fg.ForegroundApp(ctx)
		if err != nil {
			return Output{}, err
		}
		pkg = strings.TrimSpace(pkg)
		switch {
		case pkg == "":
			// Nothing open, as get_foreground_app answers it (a browser with no tab): the
			// caller's state, not the device's failure, and nothing to quit.
			return Output{Data: ForceQuitResult{Message: "nothing is in front: no app is open (on a browser device, no tab): no app to quit",
				Hint: hintNothingOpen}}, nil
		case slices.Contains(systemPackages, pkg):
			return Output{}, fmt.Errorf("the system UI (%s) is in front, not an app: the phone may be locked or a system dialog open; peek to see it", pkg)
		case isHomeApp(pkg) || ownHome(t.Driver, pkg):
			return Output{Data: ForceQuitResult{Message: "the home screen (" + pkg + ") is in front: no app to quit",
				PackageName: pkg, Hint: homeHint(t.Driver)}}, nil
		}
		if err := t.Driver.(device.AppManager).TerminateApp(ctx, pkg); err != nil {
			return Output{}, err
		}
		home, hint := "the home screen", hintForceQuit
		if t.Driver.Info().Platform == device.PlatformWeb { // a page closed, no icon to tap
			home, hint = "its home page", hintForceQuitWeb
		}
		msg := "force-quit " + pkg
		if k, ok := t.Driver.(device.KeyPresser); ok {
			if err := k.PressKey(ctx, "HOME"); err != nil {
				return Output{}, fmt.Errorf("%s stopped, but pressing HOME afterwards failed: %w", pkg, err)
			}
			msg += " and went to " + home
		}
		return Output{Data: ForceQuitResult{Message: msg, PackageName: pkg, Quit: true, Hint: hint}}, nil
	})
}
