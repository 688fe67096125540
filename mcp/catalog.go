package mcp

// catalog is every tool of the front door, in the order tools/list shows them: the gateway's
// own tools, then every device tool (tools.All). A new device tool is one file and one line in
// nodes/tools (docs/adding-a-tool.md); a new gateway tool is one file and one line here.
// platforms are the values the platform argument offers (none: any string).
func catalog(platforms ...string) []toolDef {
	return append([]toolDef{
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
	}, deviceTools()...)
}
