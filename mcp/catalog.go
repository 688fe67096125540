package mcp

// catalog is every tool of the front door, in the order tools/list shows them: the gateway's
// own tools, then every device tool (tools.All). A new device tool is one file and one line in
// nodes/tools (docs/adding-a-tool.md); a new gateway tool is one file and one line here.
func catalog() []toolDef {
	return append([]toolDef{
		// Devices, leases and tasks (gateway only).
		toolListAvailableDevices(),
		toolGetDeviceStatus(),
		toolSelectDevice(),
		toolAcquireDevice(),
		toolReleaseDevice(),
		toolListLeases(),
		toolAbortTask(),
		toolGetTaskResult(),
		toolGetLatestTask(),
	}, deviceTools()...)
}
