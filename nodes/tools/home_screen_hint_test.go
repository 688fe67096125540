package tools

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

// home_screen's next step fits the platform: a browser's HOME opens its home page, which has no
// icons to tap (QA Q13.5: "peek to plan your next tap on the home screen icons" on a browser).
func TestHomeScreenHintFitsThePlatform(t *testing.T) {
	phone := newAbled()
	if h, _ := mustRun(t, "home_screen", phone, `{}`)["hint"].(string); !strings.Contains(h, "home screen icons") {
		t.Errorf("phone: hint %q", h)
	}
	browser := newAbled()
	browser.info.Platform = device.PlatformWeb
	if h, _ := mustRun(t, "home_screen", browser, `{}`)["hint"].(string); strings.Contains(h, "icons") || !strings.Contains(h, "home page") {
		t.Errorf("browser: hint %q, want the home page's, not icons", h)
	}
}
