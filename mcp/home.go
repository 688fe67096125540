package mcp

import "github.com/corral-farm/corral/nodes"

func toolHome() toolDef {
	return newDeviceTool[nodes.NoArgs, nodes.MessageResult]("home",
		"Press the HOME button.", action(true))
}
