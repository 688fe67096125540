package mcp

// catalog is every tool of the front door, in the order tools/list shows them. Adding a tool is
// one file and one line here.
func catalog() []toolDef {
	return []toolDef{
		toolListAvailableDevices(),
		toolGetScreenSize(),
		toolScreenshot(),
		toolTakeScreenshot(),
		toolTapXY(),
	}
}
