package mcp

import "github.com/corral-farm/corral/nodes"

func toolAppUninstall() toolDef {
	return newDeviceTool[nodes.PackageArgs, nodes.PackageResult]("app_uninstall",
		"Uninstall an app: it and all its data are removed from the device.", destructive(true), packageNameParam(true))
}
