package mcp

import "github.com/corral-farm/corral/nodes"

func toolAppClear() toolDef {
	return newDeviceTool[nodes.PackageArgs, nodes.PackageResult]("app_clear",
		"Clear an app's data and cache (stops it).", destructive(true), packageNameParam(true))
}
