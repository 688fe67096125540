package android

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// installPath is where InstallApp pushes the APK before `pm install`.
const installPath = "/data/local/tmp/corral-install.apk"

// cleanupTimeout bounds the removal of a pushed APK after a cancelled install.
const cleanupTimeout = 10 * time.Second

// ListPackages lists the installed packages: `pm list packages`.
func (d *Driver) ListPackages(ctx context.Context) ([]string, error) {
	out, err := d.shell(ctx, "list packages", "pm list packages")
	if err != nil {
		return nil, err
	}
	return parsePackages(out), nil
}

// LaunchApp starts pkg's launcher activity: `monkey -p PKG -c android.intent.category.LAUNCHER 1`.
func (d *Driver) LaunchApp(ctx context.Context, pkg string) error {
	const op = "launch app"
	if err := d.checkPackage(ctx, op, pkg); err != nil {
		return err
	}
	out, err := d.shell(ctx, op, "monkey -p "+pkg+" -c android.intent.category.LAUNCHER 1")
	if err != nil {
		return err
	}
	if err := parseMonkey(out); err != nil {
		// monkey says the same of a package that is not installed: pm path tells them apart.
		if paths, perr := d.apkPaths(ctx, op, pkg); perr == nil && len(paths) == 0 {
			return d.notInstalled(ctx, op, pkg)
		}
		return d.fail(ctx, op, fmt.Errorf("%s: %w", pkg, err), "")
	}
	return nil
}

// TerminateApp stops pkg: `am force-stop PKG`. That answers nothing whether or not pkg is
// installed, so `pm path PKG` asks first: a package that is not there is an error.
func (d *Driver) TerminateApp(ctx context.Context, pkg string) error {
	const op = "terminate app"
	if err := d.checkPackage(ctx, op, pkg); err != nil {
		return err
	}
	paths, err := d.apkPaths(ctx, op, pkg)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return d.notInstalled(ctx, op, pkg)
	}
	_, err = d.shell(ctx, op, "am force-stop "+pkg)
	return err
}

// apkPaths are where pkg's APKs lie (`pm path PKG`): none when it is not installed.
func (d *Driver) apkPaths(ctx context.Context, op, pkg string) ([]string, error) {
	out, err := d.shell(ctx, op, "pm path "+pkg)
	if err != nil {
		return nil, err
	}
	return parsePackages(out), nil
}

func (d *Driver) notInstalled(ctx context.Context, op, pkg string) error {
	return d.fail(ctx, op, fmt.Errorf("%s is %w", pkg, ErrNotInstalled), "list_packages shows the installed ones; nothing was changed")
}

// ClearApp clears pkg's data and cache: `pm clear PKG`.
func (d *Driver) ClearApp(ctx context.Context, pkg string) error {
	return d.pm(ctx, "clear app", "clear", pkg)
}

// UninstallApp removes pkg: `pm uninstall PKG`.
func (d *Driver) UninstallApp(ctx context.Context, pkg string) error {
	return d.pm(ctx, "uninstall app", "uninstall", pkg)
}

// pm runs `pm VERB PKG` and reads its Success or Failure.
func (d *Driver) pm(ctx context.Context, op, verb, pkg string) error {
	if err := d.checkPackage(ctx, op, pkg); err != nil {
		return err
	}
	out, err := d.shell(ctx, op, "pm "+verb+" "+pkg)
	if err != nil {
		return err
	}
	if err := parsePMResult(out); err != nil {
		return d.pmFailed(ctx, op, verb, pkg, err)
	}
	return nil
}

// pmFailed says why `pm VERB PKG` failed, which pm itself does not ("Failed",
// "DELETE_FAILED_INTERNAL_ERROR"): pkg is not installed, or it came with the phone's system
// image (pm uninstall refuses a system app; an update of one installs under /data and is
// removed).
func (d *Driver) pmFailed(ctx context.Context, op, verb, pkg string, err error) error {
	paths, perr := d.apkPaths(ctx, op, pkg)
	switch {
	case perr != nil:
	case len(paths) == 0:
		return d.notInstalled(ctx, op, pkg)
	case verb == "uninstall" && !strings.HasPrefix(paths[0], "/data/"):
		return d.fail(ctx, op, fmt.Errorf("%s is a %w: %w", pkg, ErrSystemApp, err),
			"it is a system app (at "+paths[0]+"), which pm uninstall refuses; app_clear clears its data instead")
	}
	return d.fail(ctx, op, fmt.Errorf("%s: %w", pkg, err), "")
}

// InstallApp installs the APK at localPath: it pushes the file to
// /data/local/tmp/corral-install.apk, runs `pm install -r` on it and removes it again. It names
// what it installed from the APK's manifest, or else from the packages listed before and after
// (installedApp).
func (d *Driver) InstallApp(ctx context.Context, localPath string) (device.InstalledApp, error) {
	const op = "install app"
	f, err := os.Open(localPath)
	if err != nil {
		return device.InstalledApp{}, d.fail(ctx, op, fmt.Errorf("%w: %w", ErrBadArgument, err), "")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return device.InstalledApp{}, d.fail(ctx, op, fmt.Errorf("%w: %w", ErrBadArgument, err), "")
	}
	named := d.installedApp(ctx, f, st.Size())
	if err := d.push(ctx, f, installPath, st.ModTime()); err != nil {
		d.removeInstallFile(ctx)
		return device.InstalledApp{}, d.fail(ctx, op, err, "")
	}
	out, err := d.shell(ctx, op, "pm install -r "+installPath)
	d.removeInstallFile(ctx)
	if err != nil {
		return device.InstalledApp{}, err
	}
	if err := parsePMResult(out); err != nil {
		if hint := apkRefused(out); hint != "" {
			return device.InstalledApp{}, d.fail(ctx, op, fmt.Errorf("%s: %w: %w", filepath.Base(localPath), ErrAPKRefused, err),
				refusedHint(f, st.Size(), filepath.Base(localPath), hint))
		}
		return device.InstalledApp{}, d.fail(ctx, op, err, "")
	}
	return named(ctx), nil
}

// removeInstallFile removes the pushed APK. After a cancelled install it does so in the
// background, so that the call still returns at once.
func (d *Driver) removeInstallFile(ctx context.Context) {
	rm := func(ctx context.Context) { _, _ = d.shell(ctx, "install app", "rm -f "+installPath) }
	if ctx.Err() == nil {
		rm(ctx)
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		rm(ctx)
	}()
}

// ForegroundApp names the package whose window has focus: `dumpsys window | grep mCurrentFocus`.
func (d *Driver) ForegroundApp(ctx context.Context) (string, error) {
	const op = "foreground app"
	out, err := d.shell(ctx, op, "dumpsys window | grep mCurrentFocus")
	if err != nil {
		return "", err
	}
	pkg, err := parseFocus(out)
	if err != nil {
		return "", d.fail(ctx, op, err, "")
	}
	return pkg, nil
}

// checkPackage refuses names that are no Java package names, so that a package name can go
// into a shell command as it is.
func (d *Driver) checkPackage(ctx context.Context, op, pkg string) error {
	if validPackage(pkg) {
		return nil
	}
	return d.fail(ctx, op, fmt.Errorf("%w: %q is no package name", ErrBadArgument, clip(pkg, 80)),
		"a package name is like com.example.app; list_packages shows the installed ones")
}
