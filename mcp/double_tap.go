package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolDoubleTap() toolDef {
	return newDeviceTool[tools.BBoxArgs, tools.BBoxResult]("double_tap",
		"Tap twice quickly at the centre of a bbox (PhysiClaw): zoom a map, photo or page, or select a word. For buttons use tap.", action(false),
		bboxParam(true, "Where to double-tap: the centre of [left, top, right, bottom], relative 0-1"))
}
