package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolSwipeDirection() toolDef {
	return newDeviceTool[tools.SwipeDirectionArgs, tools.SwipeDirectionResult]("swipe_direction",
		"Swipe across the middle of the screen.", action(false),
		mcpgo.WithString("direction", mcpgo.Required(), mcpgo.Enum("up", "down", "left", "right"),
			mcpgo.Description("Where the finger moves")),
		mcpgo.WithNumber("duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds the move takes (default 0.3)")),
		mcpgo.WithNumber("press_duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds pressed before moving")),
	)
}
