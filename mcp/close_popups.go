package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolClosePopups() toolDef {
	return newDeviceTool[tools.NoArgs, tools.ClosePopupsResult]("close_popups",
		"Tap the dismiss buttons (Close, Not now, Skip, 关闭...) of up to 5 popups.", action(false))
}
