package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolForceQuit() toolDef {
	return newDeviceTool[tools.NoArgs, tools.ForceQuitResult]("force_quit",
		"Force-quit the app in front and go to the home screen: a hard reset when go_back cannot reach the right place. "+
			"The app's unsaved state is lost.", destructive(false))
}
