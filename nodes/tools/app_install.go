package tools

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/corral-farm/corral/nodes/device"
)

// AppInstallArgs are app_install's arguments (HttpRunner seed).
type AppInstallArgs struct {
	AppURL string `json:"appUrl" arg:"required,minLength=1,maxLength=4096" desc:"APK/IPA URL or path" help:"an http(s) URL of the APK/IPA, or its absolute path on the node that hosts the device"`
	Behaviour
}

// Check validates the arguments: an http(s) URL, or an absolute path on the node.
func (a *AppInstallArgs) Check() error {
	s := a.AppURL
	if strings.ContainsFunc(s, unicode.IsControl) {
		return errors.New("appUrl must not contain control characters")
	}
	if scheme, _, ok := strings.Cut(s, "://"); ok {
		switch strings.ToLower(scheme) {
		case "http", "https":
		default:
			return fmt.Errorf("appUrl scheme %q is not supported: give an http(s) URL, or an absolute path on the node", clip(scheme))
		}
		u, err := url.Parse(s)
		if err != nil {
			return fmt.Errorf("appUrl is not a valid URL: %v", err)
		}
		if u.Host == "" {
			return errors.New("appUrl has no host: give a URL like https://example.com/app.apk")
		}
		return nil
	}
	if !isAbsPath(s) {
		return fmt.Errorf("appUrl %q is neither an http(s) URL nor an absolute path on the node; give e.g. https://example.com/app.apk or /data/apps/app.apk", clip(s))
	}
	return nil
}

// AppInstallResult is app_install's structured result (HttpRunner seed).
type AppInstallResult struct {
	Message    string `json:"message" jsonschema:"What was done"`
	AppURL     string `json:"appUrl" jsonschema:"The app URL or path that was installed"`
	Bytes      int64  `json:"bytes" jsonschema:"Size of the app file in bytes"`
	Downloaded bool   `json:"downloaded" jsonschema:"True when the node downloaded appUrl first"`
	// PackageName is what app_launch, app_uninstall and app_clear take next.
	PackageName string `json:"packageName,omitempty" jsonschema:"Package name or bundle id installed, for app_launch"`
	Version     string `json:"version,omitempty" jsonschema:"Its version"`
	Hint        string `json:"hint"`
}

// Progress of app_install is reported in percent: the download is the first 90, the install
// the rest.
const (
	installDownloadShare = 90.0
	installTotal         = 100.0
)

// appInstall downloads with the node's downloader (OpsConfig's client, limit and app sources).
func appInstall() Tool {
	return Define[AppInstallArgs, AppInstallResult](Tool{
		Name:        "app_install",
		Description: "Install an app from an http(s) URL (≤ 1 GiB) or a path on the node. Reports progress.",
		Hints:       Hints{Idempotent: true, OpenWorld: true},
		Timeout:     10 * time.Minute,
		MaxTimeout:  time.Hour,
		Profiles:    []string{HttpRunner},
		Progress:    true,
		Short:       Short{Kind: ShortText, Keys: []string{"appUrl"}, Usage: "the APK/IPA: an http(s) URL or a path on the device's node"},
		Needs:       []Ability{Need[device.AppInstaller]("install apps")},
	}, func(ctx context.Context, t *Task, a AppInstallArgs) (Output, error) {
		dl := t.env().dl
		if !dl.sources.allows(a.AppURL) {
			return Output{}, BadInput("appUrl %s is not among the app sources of the node that hosts %s (%s): ask its operator, or use one of those",
				redactURL(a.AppURL), t.Driver.Info().Serial, dl.sources)
		}
		progress := func(done float64, msg string) {
			if t.Progress != nil {
				t.Progress(done, installTotal, msg)
			}
		}
		local, size, downloaded := a.AppURL, int64(0), isURL(a.AppURL)
		if downloaded {
			dir, file, n, err := dl.download(ctx, a.AppURL, t.Driver.Info().Platform, progress)
			if dir != "" {
				defer os.RemoveAll(dir)
			}
			if err != nil {
				return Output{}, downloadAgain(ctx, err)
			}
			local, size = file, n
		} else {
			fi, err := os.Stat(local)
			switch {
			case errors.Is(err, os.ErrNotExist):
				return Output{}, BadInput("no file at %s on the node that hosts %s: give a path on that node, or an http(s) URL", clip(local), t.Driver.Info().Serial)
			case err != nil:
				return Output{}, fmt.Errorf("read %s on the node: %w", clip(local), err)
			case !fi.Mode().IsRegular():
				return Output{}, BadInput("%s on the node is not a regular file: give the path of an APK/IPA", clip(local))
			}
			size = fi.Size()
		}
		progress(installDownloadShare, fmt.Sprintf("installing %s (%s) on %s", path.Base(filepath.ToSlash(local)), mib(size), t.Driver.Info().Serial))
		app, err := t.Driver.(device.AppInstaller).InstallApp(ctx, local)
		if err != nil {
			return Output{}, installAgain(ctx, err)
		}
		progress(installTotal, "installed")
		return Output{Data: installed(a.AppURL, downloaded, size, app)}, nil
	})
}

// installed is app_install's result: it names the app installed when the driver could tell,
// so that the agent can app_launch it without guessing from list_packages.
func installed(appURL string, downloaded bool, size int64, app device.InstalledApp) AppInstallResult {
	from := "the node's " + appURL
	if downloaded {
		from = redactURL(appURL) + " (downloaded by the node)"
	}
	r := AppInstallResult{AppURL: appURL, Bytes: size, Downloaded: downloaded, PackageName: app.ID, Version: app.Version}
	if app.ID == "" {
		r.Message = fmt.Sprintf("installed %s, %s; the device did not say which package it is", from, mib(size))
		r.Hint = hintInstall
		return r
	}
	r.Message = strings.TrimSpace(fmt.Sprintf("installed %s %s", app.ID, app.Version)) + fmt.Sprintf(" from %s, %s", from, mib(size))
	r.Hint = "app_launch " + app.ID + " to open it."
	return r
}
