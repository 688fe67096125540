package mcp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corral-farm/corral/nodes/tools"
)

// profiles name the tool sets of --tools: each seed's tools under its own names, in its seed's
// order (tools/list gives them so: PhysiClaw puts peek and tap first on purpose), then what a
// client of that seed needs to pick a device and let it go. Device tools that name a profile
// but not its seed (tools.Tool.Profiles) follow in catalog order.
var profiles = withDeviceTools(seedOrder)

// withDeviceTools adds to each profile of order the device tools that name it and it does not
// list yet.
func withDeviceTools(order map[string][]string) map[string][]string {
	out := make(map[string][]string, len(order))
	for name, list := range order {
		out[name] = slices.Clone(list)
	}
	for _, t := range tools.All() {
		for _, p := range t.Profiles {
			if !slices.Contains(out[p], t.Name) {
				out[p] = append(out[p], t.Name)
			}
		}
	}
	return out
}

// seedOrder is each profile's tools in its seed's order: PhysiClaw's wire order ("按 传输顺序
// … 最常用的工具（peek、tap）被有意排在最前面"), phone-agent's table of six (run_agent_task …
// get_device_status), HttpRunner's quick reference. The gateway's own device picking follows
// the seed's tools, but in HttpRunner, whose seed begins with it.
var seedOrder = map[string][]string{
	tools.HttpRunner: {"list_available_devices", "select_device", "release_device",
		"tap_xy", "tap_abs_xy", "tap_ocr", "tap_cv", "double_tap_xy",
		"swipe", "swipe_direction", "swipe_coordinate", "drag", "swipe_to_tap_app", "swipe_to_tap_text", "swipe_to_tap_texts",
		"input", "press_button", "home", "back",
		"list_packages", "app_launch", "app_terminate", "app_install", "app_uninstall", "app_clear",
		"screenshot", "get_screen_size", "get_source",
		"sleep", "sleep_ms", "sleep_random", "set_ime", "close_popups",
		"web_login_none_ui", "secondary_click", "hover_by_selector", "tap_by_selector", "secondary_click_by_selector", "web_close_tab",
		"ai_action", "ai_query", "finished"},
	tools.PhysiClaw: {"peek", "screenshot", "tap", "double_tap", "long_press", "swipe",
		"home_screen", "go_back", "force_quit", "unlock_phone", "send_to_clipboard", "sequence",
		"list_available_devices", "select_device", "release_device"},
	tools.PhoneAgent: append(slices.Clone(phoneAgentSeed), "list_available_devices", "select_device", "release_device"),
}

// phoneAgentSeed are the phone-agent seed's six tools, in its order.
var phoneAgentSeed = []string{"run_agent_task", "abort_task", "get_task_result", "get_latest_task", "take_screenshot", "get_device_status"}

// ProfileNames returns the names --tools accepts besides a list of tools, sorted.
func ProfileNames() []string {
	names := []string{"all"}
	for n := range profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SelectTools turns a --tools value into the tool names to serve, in the order tools/list
// gives them: nil for "all" (or empty), a profile's tools in its seed's order, or a
// comma-separated list of tool names in catalog order. Unknown names are an error that lists
// what is known.
func SelectTools(spec string) ([]string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "all" {
		return nil, nil
	}
	rank := map[string]int{}
	for i, d := range catalog() {
		rank[d.tool.Name] = i + 1
	}
	known := func(n string) bool { return rank[n] > 0 }
	if names, ok := profiles[spec]; ok {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !known(n) }), nil
	}
	var names []string
	for _, n := range strings.Split(spec, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !known(n) {
			return nil, fmt.Errorf("--tools: unknown tool %q; give a profile (%s) or tool names from tools/list", n, strings.Join(ProfileNames(), ", "))
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--tools %q names no tool; give a profile (%s) or tool names", spec, strings.Join(ProfileNames(), ", "))
	}
	slices.SortFunc(names, func(a, b string) int { return rank[a] - rank[b] })
	return slices.Compact(names), nil
}

// servedDefs are the tools of defs that names (Options.Tools) lists, in its order; all of
// defs, in theirs, when names is nil.
func servedDefs(defs []toolDef, names []string) []toolDef {
	if names == nil {
		return defs
	}
	out := make([]toolDef, 0, len(names))
	for _, n := range names {
		i := slices.IndexFunc(defs, func(d toolDef) bool { return d.tool.Name == n })
		if i >= 0 && !slices.ContainsFunc(out, func(d toolDef) bool { return d.tool.Name == n }) {
			out = append(out, defs[i])
		}
	}
	return out
}

// progressLogger names the logger of a tool's progress sent as logging messages: the seed's
// server for phone-agent's own tools (run_agent_task: "logger: phone-agent"), "corral" for
// the rest.
func progressLogger(tool string) string {
	if slices.Contains(phoneAgentSeed, tool) {
		return tools.PhoneAgent
	}
	return "corral"
}
