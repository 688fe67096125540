package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolHomeScreen() toolDef {
	return newDeviceTool[tools.NoArgs, tools.MessageResult]("home_screen",
		"Go to the home screen (PhysiClaw name for HOME): a known starting point.", action(true))
}
