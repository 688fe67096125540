package tools_test

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// Through the front door, as an agent reads them: a refusal of a tool an arm lacks names the
// tool that does the job on the arm (it ended "use a device whose platform supports it");
// long_press given HttpRunner's x, y and duration is sent to tap_xy (it said only `unknown
// argument "duration"`).
func TestFrontDoorNamesWhatWorksInstead(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	arm := f.StartArmTwin("n1", 5, 4).Phone.Info().Serial
	c := f.Client("agent")
	for _, r := range []struct {
		tool  string
		args  map[string]any
		names string
	}{
		{"input", map[string]any{"text": "hello"}, "on it, send_to_clipboard puts the text on its clipboard, then long_press the field and tap Paste"},
		{"get_source", nil, "on it, peek lists the elements on its screen"},
		{"close_popups", nil, "on it, peek shows the popup"},
		{"app_launch", map[string]any{"packageName": "com.corral.notes"}, "on it, swipe_to_tap_app"},
		{"app_terminate", map[string]any{"packageName": "com.corral.notes"}, "on it, force_quit swipes the app in front away"},
	} {
		args := map[string]any{"serial": arm}
		for k, v := range r.args {
			args[k] = v
		}
		res := farmtest.Call(t, c, r.tool, args)
		if text := farmtest.Text(res); !res.IsError || !strings.Contains(text, r.names) || !strings.Contains(text, "(unsupported)") {
			t.Errorf("%s on an arm: %s; want it refused naming %q", r.tool, text, r.names)
		}
	}

	res := farmtest.Call(t, c, "long_press", map[string]any{"serial": "n1-p1", "x": 0.5, "y": 0.3, "duration": 2})
	if text := farmtest.Text(res); !res.IsError || !strings.Contains(text, `unknown argument "duration": `) ||
		!strings.Contains(text, "call tap_xy with x, y and duration (seconds)") || !strings.Contains(text, "long_press takes: ") {
		t.Errorf("long_press with x, y and duration: %s; want it sent to tap_xy", text)
	}
}
