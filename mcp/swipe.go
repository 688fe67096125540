package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolSwipe() toolDef {
	return newDeviceTool[nodes.SwipeArgs, nodes.SwipeResult]("swipe",
		"Swipe, in one of two modes: give direction (up, down, left or right), or all of from_x, from_y, to_x, to_y "+
			"(relative 0.0-1.0), not both. The direction is where the finger moves: up goes from (0.5, 0.75) to (0.5, 0.25) "+
			"and scrolls the content toward its bottom; down goes from (0.5, 0.25) to (0.5, 0.75); left from (0.75, 0.5) "+
			"to (0.25, 0.5); right from (0.25, 0.5) to (0.75, 0.5).", action(false),
		mcpgo.WithString("direction", mcpgo.Enum("up", "down", "left", "right"),
			mcpgo.Description("Direction mode: where the finger moves (up, down, left or right)")),
		mcpgo.WithNumber("from_x", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Coordinate mode: starting X coordinate (0.0-1.0)")),
		mcpgo.WithNumber("from_y", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Coordinate mode: starting Y coordinate (0.0-1.0)")),
		mcpgo.WithNumber("to_x", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Coordinate mode: ending X coordinate (0.0-1.0)")),
		mcpgo.WithNumber("to_y", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Coordinate mode: ending Y coordinate (0.0-1.0)")),
		mcpgo.WithNumber("duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds the move takes (optional, default 0.3)")),
		mcpgo.WithNumber("press_duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds the finger presses before it moves (optional, default 0)")),
	)
}
