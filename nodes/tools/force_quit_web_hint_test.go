package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

// force_quit's words fit the platform: on a browser it closed a page and HOME opened the home
// page, which has no icon to tap (QA Q13: "tap its icon" on a browser); app_launch opens the
// URL again.
func TestForceQuitHintFitsThePlatform(t *testing.T) {
	for _, c := range []struct {
		platform, app, home, want, not string
	}{
		{device.PlatformAndroid, "com.example.app", "the home screen", "tap its icon", "home page"},
		{device.PlatformWeb, "https://example.org/cart", "its home page", "app_launch opens the URL again", "icon"},
	} {
		d := newAbled()
		d.info.Platform = c.platform
		d.ForegroundFn = func(context.Context) (string, error) { return c.app, nil }
		d.TerminateAppFn = func(context.Context, string) error { return nil }
		d.PressKeyFn = func(context.Context, string) error { return nil }
		res := mustRun(t, "force_quit", d, `{}`)
		hint, _ := res["hint"].(string)
		if res["quit"] != true || !strings.Contains(hint, c.want) || strings.Contains(hint, c.not) {
			t.Errorf("%s: hint %q, want %q and not %q (result %v)", c.platform, hint, c.want, c.not, res)
		}
		if msg, _ := res["message"].(string); !strings.HasSuffix(msg, "went to "+c.home) {
			t.Errorf("%s: message %q, want it to end %q", c.platform, msg, "went to "+c.home)
		}
	}
}
