package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolInput() toolDef {
	return newDeviceTool[nodes.InputArgs, nodes.InputResult]("input",
		"Type text into the focused element.", action(false),
		mcpgo.WithString("text", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(nodes.MaxInputBytes),
			mcpgo.Description("Text to type")),
	)
}
