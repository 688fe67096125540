package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolTapAbsXY() toolDef {
	return newDeviceTool[tools.TapAbsXYArgs, tools.MessageResult]("tap_abs_xy",
		"Tap at absolute pixel coordinates (0,0 top-left).", action(false),
		mcpgo.WithNumber("x", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(100000), mcpgo.Description("X pixel coordinate")),
		mcpgo.WithNumber("y", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(100000), mcpgo.Description("Y pixel coordinate")),
		mcpgo.WithNumber("duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Seconds held down")),
		mcpgo.WithBoolean("anti_risk", mcpgo.Description("Accepted; no effect")),
	)
}
