package mcp

import "github.com/corral-farm/corral/nodes"

func toolBack() toolDef {
	return newDeviceTool[nodes.NoArgs, nodes.MessageResult]("back",
		"Press BACK (Android).", action(false))
}
