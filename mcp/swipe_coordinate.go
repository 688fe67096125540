package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolSwipeCoordinate() toolDef {
	return newDeviceTool[tools.SwipeCoordinateArgs, tools.SwipeCoordinateResult]("swipe_coordinate",
		"Swipe between relative points (0-1).", action(false),
		mcpgo.WithNumber("from_x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Start X (0-1)")),
		mcpgo.WithNumber("from_y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Start Y (0-1)")),
		mcpgo.WithNumber("to_x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("End X (0-1)")),
		mcpgo.WithNumber("to_y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("End Y (0-1)")),
		mcpgo.WithNumber("duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds the move takes (default 0.3)")),
		mcpgo.WithNumber("press_duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds pressed before moving")),
	)
}
