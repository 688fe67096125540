package mcp

import (
	"fmt"
	"slices"
	"strings"
)

// profiles name the tool sets of --tools: each seed's tools under its own names, plus what a
// client of that seed needs to pick a device and let it go. Tools a profile names that no
// issue has registered yet (run_agent_task) join it when they are added to the catalog.
var profiles = map[string][]string{
	"httprunner": {
		"list_available_devices", "select_device", "release_device",
		"tap_xy", "tap_abs_xy", "double_tap_xy", "swipe", "swipe_direction", "swipe_coordinate", "drag",
		"input", "press_button", "home", "back",
		"list_packages", "app_launch", "app_terminate", "app_install", "app_uninstall", "app_clear",
		"screenshot", "get_screen_size", "get_source", "sleep", "sleep_ms", "sleep_random",
		"set_ime", "close_popups",
	},
	"physiclaw": {
		"list_available_devices", "select_device", "release_device",
		"peek", "screenshot", "tap", "double_tap", "long_press", "swipe",
		"home_screen", "go_back", "force_quit", "unlock_phone", "send_to_clipboard", "sequence",
	},
	"phone-agent": {
		"list_available_devices", "select_device", "release_device",
		"run_agent_task", "abort_task", "get_task_result", "get_latest_task", "take_screenshot", "get_device_status",
	},
}

// ProfileNames returns the names --tools accepts besides a list of tools, sorted.
func ProfileNames() []string {
	names := []string{"all"}
	for n := range profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SelectTools turns a --tools value into the set of tool names to serve: nil for "all" (or
// empty), a profile's tools, or a comma-separated list of tool names. Unknown names are an
// error that lists what is known.
func SelectTools(spec string) ([]string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "all" {
		return nil, nil
	}
	known := map[string]bool{}
	for _, d := range catalog() {
		known[d.tool.Name] = true
	}
	if names, ok := profiles[spec]; ok {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !known[n] }), nil
	}
	var names []string
	for _, n := range strings.Split(spec, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !known[n] {
			return nil, fmt.Errorf("--tools: unknown tool %q; give a profile (%s) or tool names from tools/list", n, strings.Join(ProfileNames(), ", "))
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--tools %q names no tool; give a profile (%s) or tool names", spec, strings.Join(ProfileNames(), ", "))
	}
	return names, nil
}
