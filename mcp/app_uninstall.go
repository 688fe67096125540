package mcp

import "github.com/corral-farm/corral/nodes"

func toolAppUninstall() toolDef {
	return newDeviceTool[nodes.PackageArgs, nodes.PackageResult]("app_uninstall",
		"Uninstall an app and its data.", destructive(true), packageNameParam(true))
}
