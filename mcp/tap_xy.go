package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolTapXY() toolDef {
	return newDeviceTool[tools.TapXYArgs, tools.MessageResult]("tap_xy",
		"Tap at relative coordinates (0-1).", action(false),
		mcpgo.WithNumber("x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("X coordinate (0.0-1.0)")),
		mcpgo.WithNumber("y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Y coordinate (0.0-1.0)")),
		mcpgo.WithNumber("duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds held down")),
		mcpgo.WithBoolean("anti_risk", mcpgo.Description("Accepted; no effect")),
	)
}
