package tools

import (
	"context"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/device"
)

// MaxSourceBytes bounds the UI source a result carries; a longer one is cut (at a character
// boundary) and the message says so.
const MaxSourceBytes = 512 << 10

// SourceArgs are get_source's arguments (HttpRunner seed).
type SourceArgs struct {
	PackageName string `json:"packageName,omitempty" arg:"maxLength=255" pattern:"^[A-Za-z0-9._-]+$" desc:"Package or bundle id, e.g. com.android.settings" hint:"package names and bundle ids are letters, digits, '.', '_' and '-' (list_packages lists them)"`
	SeedOptions
}

// SourceResult is get_source's structured result (HttpRunner seed).
type SourceResult struct {
	Message     string `json:"message" jsonschema:"What was done"`
	PackageName string `json:"packageName" jsonschema:"Package asked for"`
	Source      string `json:"source" jsonschema:"UI hierarchy as XML (pixel bounds)"`
}

func getSource() Tool {
	return Define[SourceArgs, SourceResult](Tool{Name: "get_source", Description: "Get the UI hierarchy of the screen as XML (bounds in pixels).", Hints: ReadOnly,
		Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner}, Short: packageName,
		Needs: []Ability{Need[device.SourceDumper]("dump its UI source").Else("peek lists the elements on its screen, read from the image")},
	}, func(ctx context.Context, t *Task, a SourceArgs) (Output, error) {
		if err := sourceAppInstalled(ctx, t.Driver, a.PackageName); err != nil {
			return Output{}, err
		}
		src, err := t.Driver.(device.SourceDumper).Source(ctx)
		if err != nil {
			return Output{}, err
		}
		msg := fmt.Sprintf("UI source of the current screen: %d bytes", len(src))
		if len(src) > MaxSourceBytes {
			n := MaxSourceBytes
			for n > 0 && !utf8.RuneStart(src[n]) {
				n--
			}
			msg = fmt.Sprintf("UI source of the current screen, cut to its first %d of %d bytes (the XML is incomplete)", n, len(src))
			src = src[:n]
		}
		if a.PackageName != "" {
			msg += "; it shows whatever is on screen, launch " + a.PackageName + " first to see that app"
		}
		return Output{Data: SourceResult{Message: msg, PackageName: a.PackageName, Source: src}}, nil
	})
}

// sourceAppInstalled refuses a packageName that is not installed on a phone, as app_launch
// does, rather than dump the screen with a note to launch what cannot be launched. A browser's
// "apps" are its open tabs, any URL opens, and a listing that fails leaves the note to say it.
func sourceAppInstalled(ctx context.Context, d device.Driver, pkg string) error {
	apps, ok := d.(device.AppManager)
	if pkg == "" || !ok || d.Info().Platform == device.PlatformWeb {
		return nil
	}
	pkgs, err := apps.ListPackages(ctx)
	if err != nil || slices.Contains(pkgs, pkg) {
		return nil
	}
	return BadInput("%s is not installed on %s; list_packages shows the installed ones (get_source dumps whatever is on screen: "+
		"app_launch an installed app first, or leave out packageName); nothing was read", pkg, d.Info().Serial)
}
