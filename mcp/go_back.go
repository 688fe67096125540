package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolGoBack() toolDef {
	return newDeviceTool[tools.NoArgs, tools.MessageResult]("go_back",
		"Go back one screen (PhysiClaw name for BACK; on iOS the swipe from the left edge).", action(false))
}
