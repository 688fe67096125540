package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolAppTerminate() toolDef {
	return newDeviceTool[tools.PackageArgs, tools.MessageResult]("app_terminate",
		"Stop an app (force-stop).", destructive(true), packageNameParam(true))
}
