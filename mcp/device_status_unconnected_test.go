package mcp

import (
	"strings"
	"testing"
)

// The phone-agent seed answers get_device_status of a phone not connected with
// {"connected": false}, not an error (QA pass Y: Corral answered isError). So it does for a
// device the farm knows that is offline, and for a caller that names none and may use none
// (none of the platform it names); a serial no device has stays an error.
func TestDeviceStatusNotConnected(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)

	gone := wantOK(t, "get_device_status", call(t, cl, "get_device_status", map[string]any{"serial": "android-gone"}))
	if gone["connected"] != false || gone["state"] != "offline" || gone["serial"] != "android-gone" || gone["model"] != "Pixel 6" {
		t.Fatalf("a known offline device: %v", gone)
	}

	for _, platform := range []string{"web", ""} { // web first: the farm has devices, none of them web
		if platform == "" {
			farm.devices = nil // a farm with no device at all
		}
		args := map[string]any{}
		if platform != "" {
			args["platform"] = platform
		}
		none := wantOK(t, "get_device_status", call(t, cl, "get_device_status", args))
		reason, _ := none["reason"].(string)
		if none["connected"] != false || none["serial"] != "" || !strings.Contains(reason, "no "+strings.TrimPrefix(platform+" device", " ")) {
			t.Errorf("no device (platform %q): %v", platform, none)
		}
	}

	farm.devices = testDevices()
	wantError(t, call(t, cl, "get_device_status", map[string]any{"serial": "emulator-9999"}), `unknown device "emulator-9999"`)
	wantError(t, call(t, cl, "get_device_status", map[string]any{}), "serial is required") // several: which one?
}
