package mcp

import (
	"slices"

	"github.com/corral-farm/corral/nodes/tools"
)

// catalog is every tool of the front door, in the order tools/list shows them: the gateway's
// own tools, then every device tool (tools.All). A new device tool is one file and one line in
// nodes/tools (docs/adding-a-tool.md); a new gateway tool is one file and one line here.
// platforms are the values the platform argument offers (none: any string). The gateway's
// tools take HttpRunner's general arguments too (withGeneralArgs).
func catalog(platforms ...string) []toolDef {
	own := []toolDef{
		// Devices, leases and tasks (gateway only).
		toolListAvailableDevices(),
		toolGetDeviceStatus(platforms),
		toolSelectDevice(platforms),
		toolAcquireDevice(platforms),
		toolReleaseDevice(),
		toolListLeases(),
		toolAbortTask(),
		toolEmergencyStop(),
		toolGetTaskResult(),
		toolGetLatestTask(),
	}
	for i, d := range own {
		own[i] = withGeneralArgs(d, slices.Contains(profiles[tools.HttpRunner], d.tool.Name))
	}
	return append(own, deviceTools()...)
}
