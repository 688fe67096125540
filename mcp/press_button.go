package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolPressButton() toolDef {
	return newDeviceTool[nodes.PressButtonArgs, nodes.ButtonResult]("press_button",
		"Press a device button (iOS: HOME, VOLUME_UP, VOLUME_DOWN, POWER only).", action(false),
		mcpgo.WithString("button", mcpgo.Required(), mcpgo.Enum(nodes.Buttons...), mcpgo.Description("Button name")),
	)
}
