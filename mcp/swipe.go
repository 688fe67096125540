package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolSwipe() toolDef {
	return newDeviceTool[tools.SwipeArgs, tools.SwipeResult]("swipe",
		"Swipe by (1) direction, (2) from_x..to_y (0-1), or (3) bbox + direction: from its centre, "+
			"size s/m/l/xl/xxl = 1/2/4/6/8 cm. Direction is the finger's: up scrolls down.", action(false),
		mcpgo.WithString("direction", mcpgo.Enum("up", "down", "left", "right"),
			mcpgo.Description("Where the finger moves")),
		mcpgo.WithNumber("from_x", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Start X (0-1)")),
		mcpgo.WithNumber("from_y", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Start Y (0-1)")),
		mcpgo.WithNumber("to_x", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("End X (0-1)")),
		mcpgo.WithNumber("to_y", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("End Y (0-1)")),
		mcpgo.WithNumber("duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds the move takes (default 0.3)")),
		mcpgo.WithNumber("press_duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds pressed before moving")),
		bboxParam(false, "[l,t,r,b] 0-1; starts at its centre"),
		mcpgo.WithString("size", mcpgo.Enum("s", "m", "l", "xl", "xxl"), mcpgo.Description("Distance (default m)")),
		mcpgo.WithString("speed", mcpgo.Enum("slow", "medium", "fast"), mcpgo.Description("Default medium")),
	)
}
