package ios

import (
	"errors"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

// Uninstalling a built-in app is the caller's mistake (bad_input), as it is on Android, not
// the device's failure, and the phone keeps the app.
func TestUninstallBuiltInAppIsBadInput(t *testing.T) {
	_, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	err := d.UninstallApp(t.Context(), "com.corral.settings")
	if !errors.Is(err, device.ErrBadInput) || !strings.Contains(err.Error(), "built-in app") {
		t.Fatalf("uninstalling Settings: %v (bad input: %v)", err, errors.Is(err, device.ErrBadInput))
	}
	if pkgs, err := d.ListPackages(t.Context()); err != nil || !contains(pkgs, "com.corral.settings") {
		t.Errorf("Settings is gone: %v, %v", pkgs, err)
	}
}
