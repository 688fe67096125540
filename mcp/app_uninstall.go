package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolAppUninstall() toolDef {
	return newDeviceTool[tools.PackageArgs, tools.PackageResult]("app_uninstall",
		"Uninstall an app and its data.", destructive(true), packageNameParam(true))
}
