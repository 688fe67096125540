package mcp

// catalog is every tool of the front door, in the order tools/list shows them. Adding a tool is
// one file and one line here.
func catalog() []toolDef {
	return []toolDef{
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
		// Screen.
		toolGetScreenSize(),
		toolScreenshot(),
		toolTakeScreenshot(),
		toolGetSource(),
		// Touch.
		toolTapXY(),
		toolTapAbsXY(),
		toolDoubleTapXY(),
		toolSwipe(),
		toolDrag(),
		// Keys and text.
		toolInput(),
		toolPressButton(),
		toolHome(),
		toolBack(),
		// Apps.
		toolListPackages(),
		toolAppLaunch(),
		toolAppTerminate(),
		// Time.
		toolSleep(),
		toolSleepMS(),
		toolSleepRandom(),
		// HttpRunner seed, added with the Android issue.
		toolSwipeDirection(),
		toolSwipeCoordinate(),
		toolAppInstall(),
		toolAppUninstall(),
		toolAppClear(),
		toolSetIME(),
		toolClosePopups(),
		// PhysiClaw seed: see, act at a bbox (swipe's bbox mode is in toolSwipe), navigate, text,
		// sequences.
		toolPeek(),
		toolTap(),
		toolDoubleTap(),
		toolLongPress(),
		toolHomeScreen(),
		toolGoBack(),
		toolForceQuit(),
		toolUnlockPhone(),
		toolSendToClipboard(),
		toolSequence(),
	}
}
