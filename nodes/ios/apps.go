package ios

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	goios "github.com/danielpaulus/go-ios/ios"
	"github.com/danielpaulus/go-ios/ios/afc"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios/ipa"
	"github.com/corral-farm/corral/nodes/ios/wda"
)

const (
	installationProxy = "com.apple.mobile.installation_proxy"
	afcService        = "com.apple.afc"
	// stagingDir is where an .ipa waits on the phone while installation_proxy installs it.
	stagingDir = "PublicStaging"
	// maxProxyMessages bounds the answers one installation_proxy command may take.
	maxProxyMessages = 10000
)

// ListPackages lists the bundle ids of the installed apps, user and system, sorted.
func (d *Driver) ListPackages(ctx context.Context) ([]string, error) {
	var ids []string
	err := d.proxy(ctx, "list apps", map[string]any{"Command": "Browse", "ClientOptions": map[string]any{
		"ApplicationType": "Any", "ReturnAttributes": []string{"CFBundleIdentifier", "CFBundleDisplayName", "ApplicationType"}}},
		func(m map[string]any) {
			list, _ := m["CurrentList"].([]any)
			for _, a := range list {
				if app, ok := a.(map[string]any); ok {
					if id, ok := app["CFBundleIdentifier"].(string); ok && id != "" {
						ids = append(ids, id)
					}
				}
			}
		})
	slices.Sort(ids)
	return slices.Compact(ids), err
}

// LaunchApp brings the app with bundle id pkg to the front, starting it if needed. WebDriverAgent
// answers an app that is not installed with an "unknown error": its app state tells that apart.
func (d *Driver) LaunchApp(ctx context.Context, pkg string) error {
	op := "launch " + pkg
	err := d.wda.Launch(ctx, pkg)
	var answer *wda.Error
	if errors.As(err, &answer) {
		if st, serr := d.wda.AppState(ctx, pkg); serr == nil && st == wda.AppUnknown {
			return d.notInstalled(op, pkg)
		}
	}
	return d.wdaError(op, err)
}

// notInstalled is the caller's asking for an app the phone does not have.
func (d *Driver) notInstalled(op, pkg string) error {
	return d.errorf(op, fmt.Errorf("%s is %w", pkg, ErrNotInstalled), "list_packages shows what is installed")
}

// TerminateApp stops the app with bundle id pkg. One that is not installed is an error
// (WebDriverAgent just answers that it was not running).
func (d *Driver) TerminateApp(ctx context.Context, pkg string) error {
	op := "terminate " + pkg
	ran, err := d.wda.Terminate(ctx, pkg)
	if err != nil || ran {
		return d.wdaError(op, err)
	}
	st, err := d.wda.AppState(ctx, pkg)
	if err != nil {
		return d.wdaError(op, err)
	}
	if st == wda.AppUnknown {
		return d.notInstalled(op, pkg)
	}
	return nil
}

// ForegroundApp names the bundle id of the app in front.
func (d *Driver) ForegroundApp(ctx context.Context) (string, error) {
	app, err := d.wda.ActiveApp(ctx)
	if err != nil {
		return "", d.wdaError("read the app in front", err)
	}
	return app.BundleID, nil
}

// InstallApp copies an .ipa into the phone's staging directory (AFC) and has
// installation_proxy install it, as Xcode and ideviceinstaller do, once the .ipa is one installd
// can unpack (ipa.Check; otherwise it is the caller's bad input). It names what it installed
// from the .ipa's Info.plist; an Info.plist it cannot read leaves that to installd to judge and
// the app unnamed. One whose CFBundleIdentifier is no bundle id is the caller's bad input.
func (d *Driver) InstallApp(ctx context.Context, localPath string) (device.InstalledApp, error) {
	op := "install " + filepath.Base(localPath)
	if ext := strings.ToLower(filepath.Ext(localPath)); ext != ".ipa" {
		return device.InstalledApp{}, d.errorf(op, fmt.Errorf("%w (%q)", errNotIPA, ext), "iPhones install .ipa files signed for them")
	}
	if err := ipa.CheckFile(ctx, localPath); err != nil {
		return device.InstalledApp{}, d.badIPA(ctx, op, err)
	}
	info, err := ipa.ReadFile(localPath)
	if errors.Is(err, ipa.ErrBadBundleID) {
		// installd takes it, but no tool could name the app after: refuse it before the copy.
		return device.InstalledApp{}, d.errorf(op, fmt.Errorf("%w, %w", err, errBundleID), "set a valid Bundle Identifier in Xcode (Signing & Capabilities) and export the .ipa again")
	}
	if err != nil {
		d.log.Debug("the .ipa's Info.plist is unreadable; the app installed stays unnamed", "err", err)
	}
	remote := path.Join(stagingDir, fmt.Sprintf("corral-%d.ipa", os.Getpid()))
	if err := d.stage(ctx, localPath, remote); err != nil {
		return device.InstalledApp{}, err
	}
	if err := d.proxy(ctx, op, map[string]any{"Command": "Install", "PackagePath": remote,
		"ClientOptions": map[string]any{"PackageType": "Developer"}}, nil); err != nil {
		return device.InstalledApp{}, err
	}
	return device.InstalledApp{ID: info.BundleID, Version: cmp.Or(info.Version, info.Build)}, nil
}

// badIPA is the error for what ipa.Check found wrong with an .ipa: the caller's mistake, with
// what to do instead (installd refuses such a file too, but after the copy, as
// PackageExtractionFailed or PackageInspectionFailed, which read as the device's failure).
func (d *Driver) badIPA(ctx context.Context, op string, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, ipa.ErrNotZip):
		return d.errorf(op, fmt.Errorf("%w: %w", errNotIPA, err), "give app_install an .ipa built and signed for this iPhone")
	case errors.Is(err, ipa.ErrNoApp), errors.Is(err, ipa.ErrTwoApps):
		return d.errorf(op, fmt.Errorf("%w: %w", errNotIPA, err), "give app_install the .ipa Xcode exports (Archive, then Distribute App)")
	case errors.Is(err, ipa.ErrDamaged):
		return d.errorf(op, fmt.Errorf("%w: %w", errUnpack, err), "copy or download the .ipa again")
	case errors.Is(err, ipa.ErrOutside):
		return d.errorf(op, fmt.Errorf("%w: %w", errUnpack, err), "rebuild it with Xcode (Archive, then Distribute App)")
	}
	return d.errorf(op, err, "")
}

// stage copies a local file to the phone over AFC.
func (d *Driver) stage(ctx context.Context, localPath, remote string) error {
	f, err := os.Open(localPath)
	if err != nil {
		return d.errorf("install", err, "")
	}
	defer f.Close()
	conn, err := d.o.Mux.service(ctx, d.DeviceID(), d.o.UDID, afcService)
	if err != nil {
		return d.errorf("install: copy the .ipa to the phone", err, "")
	}
	defer conn.Close()
	c := afc.NewFromConn(conn)
	err = guard(ctx, conn.Conn(), func() error {
		if err := c.MkDir(stagingDir); err != nil {
			return err
		}
		return c.WriteToFile(f, remote)
	})
	return d.errorf("install: copy the .ipa to the phone", err, "")
}

// UninstallApp removes the app with bundle id pkg. When installation_proxy refuses, the list of
// apps tells whether pkg was there at all.
func (d *Driver) UninstallApp(ctx context.Context, pkg string) error {
	op := "uninstall " + pkg
	err := d.proxy(ctx, op, map[string]any{"Command": "Uninstall", "ApplicationIdentifier": pkg,
		"ClientOptions": map[string]any{}}, nil)
	if err != nil && ctx.Err() == nil {
		if errors.Is(err, errSystemApp) {
			return d.errorf(op, fmt.Errorf("%s is %w", pkg, errSystemApp), "iOS keeps its built-in apps; app_terminate stops one")
		}
		if pkgs, lerr := d.ListPackages(ctx); lerr == nil && !slices.Contains(pkgs, pkg) {
			return d.notInstalled(op, pkg)
		}
	}
	return err
}

// proxy sends one installation_proxy command and reads its answers, giving each to each
// (nil: none needed), until the status is Complete or an error.
func (d *Driver) proxy(ctx context.Context, op string, cmd map[string]any, each func(map[string]any)) error {
	conn, err := d.o.Mux.service(ctx, d.DeviceID(), d.o.UDID, installationProxy)
	if err != nil {
		return d.errorf(op, err, "")
	}
	defer conn.Close()
	codec := goios.NewPlistCodec()
	err = guard(ctx, conn.Conn(), func() error {
		msg, err := codec.Encode(cmd)
		if err != nil {
			return err
		}
		if err := conn.Send(msg); err != nil {
			return err
		}
		for range maxProxyMessages {
			raw, err := codec.Decode(conn.Reader())
			if err != nil {
				return fmt.Errorf("installation_proxy: %w", err)
			}
			m, err := goios.ParsePlist(raw)
			if err != nil {
				return fmt.Errorf("installation_proxy answered a malformed plist: %w", err)
			}
			if e, ok := m["Error"]; ok {
				desc, _ := m["ErrorDescription"].(string)
				if e == "UninstallProhibited" { // a built-in app: the caller's mistake, as on Android
					return fmt.Errorf("%w: installation_proxy: %v: %s", errSystemApp, e, desc)
				}
				return fmt.Errorf("installation_proxy: %v: %s", e, desc)
			}
			if each != nil {
				each(m)
			}
			if m["Status"] == "Complete" {
				return nil
			}
		}
		return errors.New("installation_proxy never said Complete")
	})
	return d.errorf(op, err, "")
}
