package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolDrag() toolDef {
	return newDeviceTool[nodes.DragArgs, nodes.DragResult]("drag",
		"Drag from one point to another (relative coordinates 0.0-1.0): the finger presses for half a second, then moves over duration milliseconds.", action(false),
		mcpgo.WithNumber("from_x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Starting X coordinate (0.0-1.0)")),
		mcpgo.WithNumber("from_y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Starting Y coordinate (0.0-1.0)")),
		mcpgo.WithNumber("to_x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Ending X coordinate (0.0-1.0)")),
		mcpgo.WithNumber("to_y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Ending Y coordinate (0.0-1.0)")),
		mcpgo.WithNumber("duration", mcpgo.Min(0), mcpgo.Max(60000), mcpgo.Description("Milliseconds the move takes (optional, default 1000)")),
	)
}
