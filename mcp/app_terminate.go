package mcp

import "github.com/corral-farm/corral/nodes"

func toolAppTerminate() toolDef {
	return newDeviceTool[nodes.PackageArgs, nodes.MessageResult]("app_terminate",
		"Stop an app (force-stop).", destructive(true), packageNameParam(true))
}
