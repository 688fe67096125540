package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolPressButton() toolDef {
	return newDeviceTool[nodes.PressButtonArgs, nodes.ButtonResult]("press_button",
		"Press a device button. Android has all of them; iOS has HOME, VOLUME_UP, VOLUME_DOWN and POWER. Names are case-insensitive.", action(false),
		mcpgo.WithString("button", mcpgo.Required(), mcpgo.Enum(nodes.Buttons...), mcpgo.Description("Button name")),
	)
}
