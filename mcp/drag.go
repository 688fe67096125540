package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolDrag() toolDef {
	return newDeviceTool[tools.DragArgs, tools.DragResult]("drag",
		"Drag between relative points (0-1): press 0.5 s, then move.", action(false),
		mcpgo.WithNumber("from_x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Start X (0-1)")),
		mcpgo.WithNumber("from_y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Start Y (0-1)")),
		mcpgo.WithNumber("to_x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("End X (0-1)")),
		mcpgo.WithNumber("to_y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("End Y (0-1)")),
		mcpgo.WithNumber("duration", mcpgo.Min(0), mcpgo.Max(60000), mcpgo.Description("Move time in ms (default 1000)")),
	)
}
