package tools

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios"
	"github.com/corral-farm/corral/nodes/web"
)

// A tool's description names the platforms it is for as the drivers serve it: set_ime and
// app_clear, which Android's driver alone serves, said nothing of it, and back said "Press
// BACK (Android)" though browsers and arms serve it too.
func TestDescriptionsSayAndroidOnlyAsTheDriversServe(t *testing.T) {
	ps := []device.Platform{android.Platform(), ios.Platform(), web.Platform(), rig.Platform()}
	for _, tool := range All() {
		can := ToolPlatforms(ps, tool.Name)
		only := len(can) == 1 && can[0] == device.PlatformAndroid
		if says := strings.Contains(tool.Description, "Android only"); only != says {
			t.Errorf("%s is served by %v, and its description %q says Android only: %v", tool.Name, can, tool.Description, says)
		}
		if !only && strings.Contains(tool.Description, "(Android)") {
			t.Errorf("%s is served by %v, and its description %q reads as Android's alone", tool.Name, can, tool.Description)
		}
	}
}
