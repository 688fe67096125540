package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolGetScreenSize() toolDef {
	return newDeviceTool[tools.NoArgs, tools.ScreenSizeResult]("get_screen_size",
		"Get the device's screen size in pixels.", readOnly())
}
