package nodes

// DefaultOps is every op an edge node serves. Adding a tool adds its op here (and its MCP
// definition to mcp/catalog.go).
func DefaultOps() Ops {
	return NewOps(
		opGetScreenSize(),
		opScreenshot("screenshot"),
		opScreenshot("take_screenshot"),
		opGetSource(),
		opTapXY(),
		opTapAbsXY(),
		opDoubleTapXY(),
		opSwipe(),
		opDrag(),
		opInput(),
		opPressButton(),
		opKey("home", "HOME"),
		opKey("back", "BACK"),
		opListPackages(),
		opAppLaunch(),
		opAppTerminate(),
		opSleep(),
		opSleepMS(),
	)
}
