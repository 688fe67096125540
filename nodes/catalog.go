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
		opKey("home", "HOME", hintAction),
		opKey("back", "BACK", hintAction),
		opListPackages(),
		opAppLaunch(),
		opAppTerminate(),
		opSleep(),
		opSleepMS(),
		// HttpRunner seed, added with the Android issue.
		opSwipeDirection(),
		opSwipeCoordinate(),
		opAppInstall(),
		opAppUninstall(),
		opAppClear(),
		opSetIME(),
		opSleepRandom(),
		// PhysiClaw seed: bbox gestures (swipe's bbox mode is in opSwipe), navigation, text,
		// sequences and peek.
		opPeek(),
		opTap(),
		opDoubleTap(),
		opLongPress(),
		opHomeScreen(),
		opGoBack(),
		opForceQuit(),
		opSendToClipboard(),
		opSequence(),
	)
}
