package tools

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// PackageArgs are the arguments of app_launch and app_terminate (HttpRunner seed).
type PackageArgs struct {
	PackageName string `json:"packageName" arg:"required,maxLength=255" pattern:"^[A-Za-z0-9._-]+$" desc:"Package or bundle id, e.g. com.android.settings" help:"an Android package name or iOS bundle id, e.g. com.android.settings (list_packages lists them)" hint:"package names and bundle ids are letters, digits, '.', '_' and '-' (list_packages lists them)"`
}

// PackagesResult is list_packages' structured result (HttpRunner seed).
type PackagesResult struct {
	Packages []string `json:"packages" jsonschema:"List of installed app package names on the device"`
}

func opListPackages() Op {
	return Op{Name: "list_packages", Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			if err := DecodeArgs(t.Args, &NoArgs{}); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.AppManager)
			if !ok {
				return Output{}, Unsupported(t.Driver, "list apps")
			}
			pkgs, err := d.ListPackages(ctx)
			if err != nil {
				return Output{}, err
			}
			pkgs = slices.Sorted(slices.Values(pkgs))
			if pkgs == nil {
				pkgs = []string{}
			}
			return Output{Data: PackagesResult{Packages: pkgs}, Text: fmt.Sprintf("%d packages", len(pkgs))}, nil
		}}
}

// opApp is app_launch or app_terminate: one AppManager call on a package.
func opApp(name, verb, hint string, call func(device.AppManager, context.Context, string) error) Op {
	return Op{Name: name, Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a PackageArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.AppManager)
			if !ok {
				return Output{}, Unsupported(t.Driver, "manage apps")
			}
			if err := call(d, ctx, a.PackageName); err != nil {
				return Output{}, err
			}
			return Output{Data: MessageResult{Message: verb + " " + a.PackageName, Hint: hint}}, nil
		}}
}

func opAppLaunch() Op {
	return opApp("app_launch", "launched", hintLaunch, device.AppManager.LaunchApp)
}

func opAppTerminate() Op {
	return opApp("app_terminate", "terminated", hintAction, device.AppManager.TerminateApp)
}

// PackageResult is the structured result of app_uninstall and app_clear (HttpRunner seed).
type PackageResult struct {
	Message     string `json:"message" jsonschema:"Success message confirming the operation"`
	PackageName string `json:"packageName" jsonschema:"Package name of the app acted on"`
	Hint        string `json:"hint"`
}

func opAppUninstall() Op {
	return Op{Name: "app_uninstall", Timeout: time.Minute, MaxTimeout: 5 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a PackageArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.AppInstaller)
			if !ok {
				return Output{}, Unsupported(t.Driver, "uninstall apps")
			}
			if err := d.UninstallApp(ctx, a.PackageName); err != nil {
				return Output{}, err
			}
			return Output{Data: PackageResult{Message: "uninstalled " + a.PackageName, PackageName: a.PackageName, Hint: hintUninstall}}, nil
		}}
}

func opAppClear() Op {
	return Op{Name: "app_clear", Timeout: 30 * time.Second, MaxTimeout: 5 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a PackageArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.AppClearer)
			if !ok {
				return Output{}, Unsupported(t.Driver, "clear app data")
			}
			if err := d.ClearApp(ctx, a.PackageName); err != nil {
				return Output{}, err
			}
			return Output{Data: PackageResult{Message: "cleared the data and cache of " + a.PackageName, PackageName: a.PackageName, Hint: hintClear}}, nil
		}}
}

func listPackages() Tool {
	return NewTool[NoArgs, PackagesResult](Tool{Description: "List installed app packages.", Hints: ReadOnly,
		Profiles: []string{HttpRunner}, Short: noParams}).withOp(opListPackages())
}

func appLaunch() Tool {
	return NewTool[PackageArgs, MessageResult](Tool{Description: "Launch an app or bring it to the front.", Hints: Hints{Idempotent: true},
		Profiles: []string{HttpRunner}, Step: StepObject, Short: packageName}).withOp(opAppLaunch())
}

func appTerminate() Tool {
	return NewTool[PackageArgs, MessageResult](Tool{Description: "Stop an app (force-stop).", Hints: Hints{Destructive: true, Idempotent: true},
		Profiles: []string{HttpRunner}, Short: packageName}).withOp(opAppTerminate())
}

func appUninstall() Tool {
	return NewTool[PackageArgs, PackageResult](Tool{Description: "Uninstall an app and its data.", Hints: Hints{Destructive: true, Idempotent: true},
		Profiles: []string{HttpRunner}, Short: packageName}).withOp(opAppUninstall())
}

func appClear() Tool {
	return NewTool[PackageArgs, PackageResult](Tool{Description: "Clear an app's data and cache (stops it).", Hints: Hints{Destructive: true, Idempotent: true},
		Profiles: []string{HttpRunner}, Short: packageName}).withOp(opAppClear())
}
