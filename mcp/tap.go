package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolTap() toolDef {
	return newDeviceTool[tools.BBoxArgs, tools.BBoxResult]("tap",
		"Tap once at the centre of a bbox (PhysiClaw): buttons, links, list items, dismissing dialogs.", action(false),
		bboxParam(true, "Where to tap: the centre of [left, top, right, bottom], relative 0-1, as peek lists them"))
}

// bboxParam is the bbox argument of the PhysiClaw tools: [left, top, right, bottom], relative
// 0-1.
func bboxParam(required bool, description string) mcpgo.ToolOption {
	opts := []mcpgo.PropertyOption{mcpgo.MinItems(4), mcpgo.MaxItems(4), mcpgo.WithNumberItems(mcpgo.Min(0), mcpgo.Max(1)),
		mcpgo.Description(description)}
	if required {
		opts = append(opts, mcpgo.Required())
	}
	return mcpgo.WithArray("bbox", opts...)
}
