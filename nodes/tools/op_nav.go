package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// PhysiClaw's navigation tools: fixed system gestures, no bbox.

func opHomeScreen() Op { return opKey("home_screen", "HOME", hintHome) }

// iOS has no BACK key: go_back there is the left-edge swipe, from the edge to 60% of the width
// at mid height, over iosBackSwipe.
const iosBackSwipe = 300 * time.Millisecond

func opGoBack() Op {
	return Op{Name: "go_back", Timeout: 10 * time.Second, MaxTimeout: time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			if err := DecodeArgs(t.Args, &NoArgs{}); err != nil {
				return Output{}, err
			}
			if t.Driver.Info().Platform != device.PlatformIOS {
				if err := pressKey(ctx, t.Driver, "BACK"); err != nil {
					return Output{}, err
				}
				return Output{Data: MessageResult{Message: "pressed BACK", Hint: hintBack}}, nil
			}
			sw, ok := t.Driver.(device.Swiper)
			if !ok {
				return Output{}, Unsupported(t.Driver, "go back (iOS has no back button, and this device cannot swipe from the edge)")
			}
			s, err := t.Driver.ScreenSize(ctx)
			if err != nil {
				return Output{}, err
			}
			from := device.Point{X: 0, Y: s.Height / 2}
			to := device.Point{X: scale(0.6, s.Width), Y: s.Height / 2}
			if err := sw.Swipe(ctx, from, to, iosBackSwipe, 0); err != nil {
				return Output{}, err
			}
			return Output{Data: MessageResult{Hint: hintBack, Message: fmt.Sprintf(
				"swiped right from the left edge (the iOS back gesture): pixel (%d, %d) to (%d, %d) in %s", from.X, from.Y, to.X, to.Y, iosBackSwipe)}}, nil
		}}
}

// systemPackages are never force-quit: the system UI (lock screen, shade) is in front of them.
var systemPackages = []string{"android", "com.android.systemui"}

// isHomeApp guesses whether pkg is a home screen app (launcher), which force_quit leaves alone.
func isHomeApp(pkg string) bool {
	return strings.Contains(strings.ToLower(pkg), "launcher") || slices.Contains([]string{"com.miui.home", "com.huawei.android.launcher", "com.apple.springboard"}, pkg)
}

// ForceQuitResult is force_quit's structured result.
type ForceQuitResult struct {
	Message     string `json:"message" jsonschema:"What was quit"`
	PackageName string `json:"packageName" jsonschema:"Package (bundle id) of the app that was in front"`
	Quit        bool   `json:"quit" jsonschema:"False when no app was in front (the home screen was)"`
	Hint        string `json:"hint"`
}

// opForceQuit stops the app in front and goes to the home screen, as PhysiClaw's app-switcher
// gesture does.
func opForceQuit() Op {
	return Op{Name: "force_quit", Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			if err := DecodeArgs(t.Args, &NoArgs{}); err != nil {
				return Output{}, err
			}
			fg, ok := t.Driver.(device.ForegroundReporter)
			am, ok2 := t.Driver.(device.AppManager)
			if !ok || !ok2 {
				return Output{}, Unsupported(t.Driver, "force-quit the app in front")
			}
			pkg, err := fg.ForegroundApp(ctx)
			if err != nil {
				return Output{}, err
			}
			pkg = strings.TrimSpace(pkg)
			switch {
			case pkg == "":
				return Output{}, fmt.Errorf("cannot tell which app is in front (the device named none); peek, then app_terminate the app by its packageName")
			case slices.Contains(systemPackages, pkg):
				return Output{}, fmt.Errorf("the system UI (%s) is in front, not an app: the phone may be locked or a system dialog open; peek to see it", pkg)
			case isHomeApp(pkg):
				return Output{Data: ForceQuitResult{Message: "the home screen (" + pkg + ") is in front: no app to quit",
					PackageName: pkg, Hint: hintHome}}, nil
			}
			if err := am.TerminateApp(ctx, pkg); err != nil {
				return Output{}, err
			}
			msg := "force-quit " + pkg
			if k, ok := t.Driver.(device.KeyPresser); ok {
				if err := k.PressKey(ctx, "HOME"); err != nil {
					return Output{}, fmt.Errorf("%s stopped, but pressing HOME afterwards failed: %w", pkg, err)
				}
				msg += " and went to the home screen"
			}
			return Output{Data: ForceQuitResult{Message: msg, PackageName: pkg, Quit: true, Hint: hintForceQuit}}, nil
		}}
}

func homeScreen() Tool {
	return NewTool[NoArgs, MessageResult](Tool{Description: "Go to the home screen (PhysiClaw name for HOME): a known starting point.",
		Hints: Hints{Idempotent: true}, Profiles: []string{PhysiClaw}, Step: StepObject, Short: noParams}).withOp(opHomeScreen())
}

func goBack() Tool {
	return NewTool[NoArgs, MessageResult](Tool{Description: "Go back one screen (PhysiClaw name for BACK; on iOS the swipe from the left edge).",
		Profiles: []string{PhysiClaw}, Step: StepObject, Short: noParams}).withOp(opGoBack())
}

func forceQuit() Tool {
	return NewTool[NoArgs, ForceQuitResult](Tool{Description: "Force-quit the app in front and go to the home screen: a hard reset when go_back cannot reach the right place. " +
		"The app's unsaved state is lost.", Hints: Hints{Destructive: true}, Profiles: []string{PhysiClaw}, Short: noParams}).withOp(opForceQuit())
}
