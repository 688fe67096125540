package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolListPackages() toolDef {
	return newDeviceTool[tools.NoArgs, tools.PackagesResult]("list_packages",
		"List installed app packages.", readOnly())
}
