package mcp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corral-farm/corral/nodes/tools"
)

// profiles name the tool sets of --tools: each seed's tools under its own names (the device
// tools whose tools.Tool names the profile), plus what a client of that seed needs to pick a
// device and let it go. Tools a profile names that no issue has registered yet
// (run_agent_task) join it when they are added to the catalog.
var profiles = withDeviceTools(gatewayProfiles)

// withDeviceTools adds to each profile of gw the device tools that name it.
func withDeviceTools(gw map[string][]string) map[string][]string {
	out := make(map[string][]string, len(gw))
	for name, list := range gw {
		out[name] = slices.Clone(list)
	}
	for _, t := range tools.All() {
		for _, p := range t.Profiles {
			out[p] = append(out[p], t.Name)
		}
	}
	return out
}

// gatewayProfiles are the gateway's own tools of each profile.
var gatewayProfiles = map[string][]string{
	tools.HttpRunner: {"list_available_devices", "select_device", "release_device"},
	tools.PhysiClaw:  {"list_available_devices", "select_device", "release_device"},
	tools.PhoneAgent: {
		"list_available_devices", "select_device", "release_device",
		"run_agent_task", "abort_task", "get_task_result", "get_latest_task", "get_device_status",
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
