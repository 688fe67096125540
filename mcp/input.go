package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolInput() toolDef {
	return newDeviceTool[tools.InputArgs, tools.InputResult]("input",
		"Type text into the focused element.", action(false),
		mcpgo.WithString("text", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(tools.MaxInputBytes),
			mcpgo.Description("Text to type")),
	)
}
