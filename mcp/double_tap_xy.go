package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolDoubleTapXY() toolDef {
	return newDeviceTool[tools.DoubleTapXYArgs, tools.MessageResult]("double_tap_xy",
		"Double-tap at relative coordinates (0-1).", action(false),
		mcpgo.WithNumber("x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("X coordinate (0.0-1.0)")),
		mcpgo.WithNumber("y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Y coordinate (0.0-1.0)")),
	)
}
