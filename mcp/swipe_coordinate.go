package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolSwipeCoordinate() toolDef {
	return newDeviceTool[nodes.SwipeCoordinateArgs, nodes.SwipeCoordinateResult]("swipe_coordinate",
		"Swipe from one point to another (relative coordinates 0.0-1.0): swipe's coordinate mode.", action(false),
		mcpgo.WithNumber("from_x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Starting X coordinate (0.0-1.0)")),
		mcpgo.WithNumber("from_y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Starting Y coordinate (0.0-1.0)")),
		mcpgo.WithNumber("to_x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Ending X coordinate (0.0-1.0)")),
		mcpgo.WithNumber("to_y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Ending Y coordinate (0.0-1.0)")),
		mcpgo.WithNumber("duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds the move takes (optional, default 0.3)")),
		mcpgo.WithNumber("press_duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds the finger presses before it moves (optional, default 0)")),
	)
}
