package mcp

import "github.com/corral-farm/corral/nodes"

func toolListPackages() toolDef {
	return newDeviceTool[nodes.NoArgs, nodes.PackagesResult]("list_packages",
		"List installed app packages.", readOnly())
}
