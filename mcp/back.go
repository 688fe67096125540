package mcp

import "github.com/corral-farm/corral/nodes"

func toolBack() toolDef {
	return newDeviceTool[nodes.NoArgs, nodes.MessageResult]("back",
		"Press the BACK button (Android only: iOS has none).", action(false))
}
