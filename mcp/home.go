package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolHome() toolDef {
	return newDeviceTool[tools.NoArgs, tools.MessageResult]("home",
		"Press the HOME button.", action(true))
}
