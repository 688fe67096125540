package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolBack() toolDef {
	return newDeviceTool[tools.NoArgs, tools.MessageResult]("back",
		"Press BACK (Android).", action(false))
}
