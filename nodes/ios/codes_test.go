package ios

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// The caller's mistakes on an iPhone are bad_input, through the tools and the real driver on a
// simulated iPhone, as on the other platforms: driver_error (which counts toward the
// CorralToolErrors alerts) is left for the device's and the driver's own failures. The
// messages say what to do, without WebDriverAgent's routes.
func TestCallerMistakesOnAnIPhoneAreBadInput(t *testing.T) {
	_, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	run := func(tool, args string) error {
		t.Helper()
		_, err := tools.DefaultOps()[tool].Run(t.Context(), &tools.Task{Driver: d, Args: json.RawMessage(args)})
		return err
	}
	junk := filepath.Join(t.TempDir(), "junk.ipa") // named .ipa, but no zip: installd said PackageExtractionFailed (driver_error)
	if err := os.WriteFile(junk, []byte("not an app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, args, code string
		says             []string
	}{
		{"app_launch", `{"packageName":"com.nope.app"}`, broker.CodeBadInput, []string{"com.nope.app is not installed", "list_packages"}},
		{"app_terminate", `{"packageName":"com.nope.app"}`, broker.CodeBadInput, []string{"com.nope.app is not installed", "list_packages"}},
		{"app_uninstall", `{"packageName":"com.nope.app"}`, broker.CodeBadInput, []string{"com.nope.app is not installed", "list_packages"}},
		{"press_button", `{"button":"MENU"}`, broker.CodeBadInput, []string{"no such key", "HOME"}},
		{"press_button", `{"button":"ESCAPE"}`, broker.CodeBadInput, []string{"no such key", "go_back"}},
		{"press_button", `{"button":"BACK"}`, broker.CodeUnsupported, []string{"no back button", "go_back makes iOS's back gesture"}},
		{"back", `{}`, broker.CodeUnsupported, []string{"no back button", "go_back makes iOS's back gesture"}},
		{"app_install", `{"appUrl":"/etc/passwd"}`, broker.CodeBadInput, []string{"not an .ipa"}},
		{"app_install", `{"appUrl":"` + junk + `"}`, broker.CodeBadInput, []string{"not an .ipa", "not a zip archive", "give app_install an .ipa"}},
		{"input", `{"text":"hello"}`, broker.CodeBadInput, []string{"no text field has focus", "tap the field first"}},
		{"sequence", `{"steps":[{"tool_name":"home"},{"tool_name":"press_button","args":{"button":"MENU"}}]}`,
			broker.CodeBadInput, []string{"stopped at step 2", "no such key", "Step 1 ran"}},
	} {
		err := run(c.tool, c.args)
		if err == nil {
			t.Errorf("%s %s: no error", c.tool, c.args)
			continue
		}
		if got := tools.ErrorCode(err); got != c.code {
			t.Errorf("%s %s: code %s, want %s (%v)", c.tool, c.args, got, c.code, err)
		}
		for _, s := range c.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s %s: %q does not say %q", c.tool, c.args, err, s)
			}
		}
		if strings.Contains(err.Error(), "/session/") || strings.Contains(err.Error(), "HTTP 500") {
			t.Errorf("%s %s: %q shows WebDriverAgent's internals", c.tool, c.args, err)
		}
	}
	// A point off the screen, which the tools catch first, is the caller's at the driver too.
	if err := d.Tap(t.Context(), device.Point{X: 750, Y: 10}, 0); !errors.Is(err, device.ErrBadInput) || !strings.Contains(err.Error(), "off the screen") {
		t.Errorf("a tap off the screen: %v", err)
	}
	// What an iPhone does is still done: WAKEUP wakes it; an app it has launches.
	for _, c := range [][2]string{{"press_button", `{"button":"WAKEUP"}`}, {"app_launch", `{"packageName":"com.corral.notes"}`}} {
		if err := run(c[0], c[1]); err != nil {
			t.Errorf("%s %s: %v", c[0], c[1], err)
		}
	}
}
