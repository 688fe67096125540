package device_test

import (
	"os/exec"
	"strings"
	"testing"
)

// Drivers and the simulators depend on the device contract and their own protocol libraries
// only: not on the node runtime (actors, NATS), so a driver builds and tests on its own.
func TestDriversLinkNoRuntime(t *testing.T) {
	allowed := map[string]bool{
		"github.com/corral-farm/corral/nodes/device": true,
		"github.com/corral-farm/corral/nodes/sim":    true, // adbsim's phone behind the ADB transport
		// android.Platform's --sim-android devices (adbsim is held to this same list)
		"github.com/corral-farm/corral/nodes/android/adbsim": true,
		// iOS: the WebDriverAgent client, and the simulators behind ios.Platform's --sim-ios
		"github.com/corral-farm/corral/nodes/ios/wda":    true,
		"github.com/corral-farm/corral/nodes/ios/iossim": true,
		"github.com/corral-farm/corral/nodes/ios/wdasim": true,
		"github.com/corral-farm/corral/nodes/uitree":     true, // wdasim reads its phone's uiautomator dump
		// the app files' formats: what an APK's manifest and an .ipa's Info.plist name
		"github.com/corral-farm/corral/nodes/android/apk": true,
		"github.com/corral-farm/corral/nodes/ios/ipa":     true,
	}
	// The arm rig's driver is held to it too, with its own protocol and geometry packages, the
	// strict reading of its rigs file and the records' rule for secrets (text only, no runtime).
	for _, dep := range []string{"arm/calib", "arm/camera", "arm/camera/camsim", "arm/grbl", "arm/grbl/grblsim", "arm/twin", "internal/geom", "internal/lens",
		"internal/yamlfile", "internal/redact"} {
		allowed["github.com/corral-farm/corral/"+dep] = true
	}
	for _, pkg := range []string{"../sim", "../android", "../android/adbsim", "../ios", "../ios/iossim", "../ios/wdasim", "../../arm/rig"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		self, _ := exec.Command("go", "list", pkg).Output()
		for _, dep := range strings.Fields(string(out)) {
			corral := strings.HasPrefix(dep, "github.com/corral-farm/corral/")
			if corral && !allowed[dep] && dep != strings.TrimSpace(string(self)) ||
				strings.Contains(dep, "protoactor") || strings.Contains(dep, "nats-io/") {
				t.Errorf("%s depends on %s; a driver may import only nodes/device and its protocol libraries", pkg, dep)
			}
		}
	}
}
