package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolLongPress() toolDef {
	return newDeviceTool[tools.BBoxArgs, tools.BBoxResult]("long_press",
		"Press and hold for 1.2 s at the centre of a bbox (PhysiClaw): context menus, edit mode, the paste popup after send_to_clipboard.", action(false),
		bboxParam(true, "Where to press: the centre of [left, top, right, bottom], relative 0-1"))
}
