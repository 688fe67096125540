package mcp

import "github.com/corral-farm/corral/nodes"

func toolAppLaunch() toolDef {
	return newDeviceTool[nodes.PackageArgs, nodes.MessageResult]("app_launch",
		"Launch an app or bring it to the front.", action(true), packageNameParam(true))
}
