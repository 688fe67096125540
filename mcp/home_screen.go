package mcp

import "github.com/corral-farm/corral/nodes"

func toolHomeScreen() toolDef {
	return newDeviceTool[nodes.NoArgs, nodes.MessageResult]("home_screen",
		"Go to the home screen (PhysiClaw name for HOME): a known starting point.", action(true))
}
