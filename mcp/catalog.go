package mcp

import "github.com/corral-farm/corral/nodes/tools"

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
		specTool("get_screen_size"),
		specTool("screenshot"),
		specTool("take_screenshot"),
		specTool("get_source"),
		// Touch.
		specTool("tap_xy"),
		specTool("tap_abs_xy"),
		specTool("double_tap_xy"),
		specTool("swipe"),
		specTool("drag"),
		// Keys and text.
		specTool("input"),
		specTool("press_button"),
		specTool("home"),
		specTool("back"),
		// Apps.
		specTool("list_packages"),
		specTool("app_launch"),
		specTool("app_terminate"),
		// Time.
		specTool("sleep"),
		specTool("sleep_ms"),
		specTool("sleep_random"),
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

// specTool is the gateway half of the device tool called name (tools.All).
func specTool(name string) toolDef {
	t, ok := tools.Lookup(name)
	if !ok {
		panic("no tool " + name)
	}
	return deviceTool(t)
}
