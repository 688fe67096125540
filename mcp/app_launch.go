package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolAppLaunch() toolDef {
	return newDeviceTool[tools.PackageArgs, tools.MessageResult]("app_launch",
		"Launch an app or bring it to the front.", action(true), packageNameParam(true))
}
