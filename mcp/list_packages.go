package mcp

import "github.com/corral-farm/corral/nodes"

func toolListPackages() toolDef {
	return newDeviceTool[nodes.NoArgs, nodes.PackagesResult]("list_packages",
		"List the package names (bundle ids on iOS) of the apps installed on the device.", readOnly())
}
