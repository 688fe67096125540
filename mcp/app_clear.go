package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolAppClear() toolDef {
	return newDeviceTool[tools.PackageArgs, tools.PackageResult]("app_clear",
		"Clear an app's data and cache (stops it).", destructive(true), packageNameParam(true))
}
