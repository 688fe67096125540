package mcp

import "github.com/corral-farm/corral/nodes"

func toolGetScreenSize() toolDef {
	return newDeviceTool[nodes.NoArgs, nodes.ScreenSizeResult]("get_screen_size",
		"Get the device's screen size in pixels.", readOnly())
}
