package mcp

import "github.com/corral-farm/corral/nodes"

func toolAppClear() toolDef {
	return newDeviceTool[nodes.PackageArgs, nodes.PackageResult]("app_clear",
		"Clear an app's data and cache (the app is stopped): logins, settings and files are lost.", destructive(true), packageNameParam(true))
}
